/**
 * The SVG lane diagram of one trace: one lane per thread over the step axis (or a
 * virtual-time axis, where each step is as wide as the time its ops took); spans while a
 * thread holds mx (solid), waits on cv or cv_take (hatched), or is woken and re-taking mx
 * (dashed); the tier calls it is inside (thin bars under the lane); one mark per step a
 * thread moved (colour: sync, backend, engine, fault); arrows from the signal or
 * broadcast that woke a waiter, from spawn to the new thread and from a thread's end to
 * its join; spurious wakeups marked; the violating step as a red band across all lanes.
 * Hovering a mark shows the step, the virtual time, who holds mx, every op there with its
 * result and duration (an SVG <title>, so it works without script).
 *
 * Invariant: one `g.lane` per thread of the trace, one mark per (thread, step) cell of the
 * window; the violating step carries `data-violation-step`. The arrowhead and hatch it
 * refers to are defined once per page (page.ts `SHARED_SVG_DEFS`).
 */
import { el, esc, leaf, num, title } from './html.js';
import { buildLaneModel, mxHolderAt, type Cell, type CellItem, type LaneModel, type Span } from './lane_model.js';
import type { CounterexampleView } from './report_inputs.js';

export type LaneAxis = 'step' | 'time';

const GUTTER = 104;
/** a short trace is spread over about this many pixels, a long one scrolls */
const TARGET_WIDTH = 1030;
/** step axis: the width of one step, between these */
const COL_MIN = 7;
const COL_MAX = 22;
/** time axis: a step with no virtual time still gets this width, so it stays visible */
const MIN_COL = 3;
/** time axis: pixels per virtual microsecond, at most (a trace of a few microseconds) */
const PX_PER_US_MAX = 40;
const TOP = 30;
const LANE_H = 42;
const ROW_Y = 6;
const ROW_H = 14;
const CALL_Y = 24;
const CALL_H = 4;
const CALL_GAP = 5;

/** x of each step's left edge and each step's width, for the chosen axis */
function columns(
  m: LaneModel,
  axis: LaneAxis,
): { x: (step: number) => number; w: (step: number) => number; width: number; col: number } {
  const n = m.lastStep - m.firstStep + 1;
  const col = Math.min(COL_MAX, Math.max(COL_MIN, TARGET_WIDTH / n));
  const widths = new Array<number>(n).fill(col);
  if (axis === 'time') {
    const dt = new Array<number>(n).fill(0);
    for (const c of m.cells) for (const i of c.items) dt[c.step - m.firstStep] = (dt[c.step - m.firstStep] ?? 0) + i.dt;
    const total = dt.reduce((a, b) => a + b, 0);
    const scale = total > 0 ? Math.min(PX_PER_US_MAX, Math.max(0.5, (TARGET_WIDTH - n * MIN_COL) / total)) : 0;
    for (let i = 0; i < n; i++) widths[i] = MIN_COL + (dt[i] ?? 0) * scale;
  }
  const xs = new Array<number>(n + 1);
  xs[0] = GUTTER;
  for (let i = 0; i < n; i++) xs[i + 1] = (xs[i] ?? 0) + (widths[i] ?? col);
  const at = (step: number): number => xs[Math.min(n, Math.max(0, step - m.firstStep))] ?? GUTTER;
  return { x: at, w: (step) => widths[step - m.firstStep] ?? col, width: (xs[n] ?? GUTTER) + 48, col };
}

function cellTitle(m: LaneModel, c: Cell): string {
  const holder = mxHolderAt(m, c.step);
  const lines = [
    `step ${c.step} · t ${c.t.toFixed(2)} µs · ${m.lanes[c.tid] ?? c.tid} · mx held by ${holder === null ? 'nobody' : (m.lanes[holder] ?? holder)}`,
  ];
  for (const i of c.items) lines.push(`${itemText(i)}${i.dt > 0 ? `  (${num(i.dt)} µs)` : ''}`);
  return lines.join('\n');
}

/** One record for people: a return and a spawn say what they gave back; the rest, their words. */
function itemText(i: CellItem): string {
  const e = i.event;
  if (e.k === 'ret') return `return from ${e.fn} → ${e.value}`;
  if (e.k === 'spawn' && e.tid >= 0) return `spawn ${e.name} → thread ${e.tid}`;
  return i.text;
}

function mark(c: Cell, x: number, w: number, y: number, tip: string): string {
  const cx = x + w / 2;
  const mid = y + ROW_Y + ROW_H / 2;
  const a = { class: `m k-${c.kind}`, 'data-step': c.step };
  switch (c.kind) {
    case 'notify':
      return el('path', { ...a, d: `M${num(cx)} ${num(mid - 5)}l4 5l-4 5l-4 -5z` }, tip);
    case 'woken':
    case 'thread':
      return el('circle', { ...a, cx, cy: mid, r: c.kind === 'woken' ? 3 : 2.5 }, tip);
    case 'spurious':
      return el(
        'path',
        { ...a, d: `M${num(cx)} ${num(mid - 6)}l2 4.5l4.5 .5l-3.5 3l1 4.5l-4 -2.5l-4 2.5l1 -4.5l-3.5 -3l4.5 -.5z` },
        tip,
      );
    case 'violation':
      return el('circle', { ...a, cx, cy: mid, r: 5 }, tip);
    case 'mark':
      return el('rect', { ...a, x: x + w / 2 - 1, y: y + ROW_Y + 2, width: 2, height: ROW_H - 4 }, tip);
    case 'mutex':
    case 'wait':
      return el('rect', { ...a, x: x + 1, y: mid - 3, width: Math.max(1, w - 2), height: 6 }, tip);
    default:
      return el('rect', { ...a, x: x + 1, y: y + ROW_Y + 1, width: Math.max(1, w - 2), height: ROW_H - 2 }, tip);
  }
}

function span(s: Span, x0: number, x1: number, y: number): string {
  const what = {
    mx: 'holds mx',
    'wait-cv': 'waits on cv',
    'wait-cv_take': 'waits on cv_take',
    woken: 'woken, re-taking mx',
  }[s.kind];
  const tip = title(`${what}: steps ${s.from}–${s.to}${s.open ? ' (still at the end)' : ''}`);
  if (s.kind === 'woken') {
    const mid = y + ROW_Y + ROW_H / 2;
    return el('line', { class: 's-woken', x1: x0, y1: mid, x2: x1, y2: mid }, tip);
  }
  return el('rect', { class: `s-${s.kind}`, x: x0, y: y + ROW_Y, width: Math.max(1, x1 - x0), height: ROW_H }, tip);
}

/** The diagram of a trace, as an <svg> element. */
export function renderLaneSvg(
  trace: CounterexampleView['trace'],
  opts: { axis?: LaneAxis; statement?: string | null; lastSteps?: number } = {},
): string {
  const m = buildLaneModel(trace, opts.lastSteps);
  const axis = opts.axis ?? 'step';
  const col = columns(m, axis);
  const laneY = (tid: number): number => TOP + tid * LANE_H;
  const lanesBottom = TOP + m.lanes.length * LANE_H;
  const height = lanesBottom + (m.violation !== null ? 22 : 8);
  const parts: string[] = [];

  // the step and virtual-time ruler
  const every = axis === 'step' ? (col.col >= 14 ? 5 : 10) : 20;
  for (let s = Math.ceil(m.firstStep / every) * every; s <= m.lastStep; s += every) {
    const x = col.x(s);
    parts.push(leaf('line', { class: 'tick', x1: x, y1: TOP - 4, x2: x, y2: lanesBottom }));
    const t = m.timeAt.get(s);
    parts.push(el('text', { class: 'ax', x: x + 2, y: 11 }, String(s)));
    if (t !== undefined) parts.push(el('text', { class: 'ax t', x: x + 2, y: 22 }, `${num(t)}µs`));
  }
  parts.push(
    el('text', { class: 'ax', x: 4, y: 11 }, 'step'),
    el('text', { class: 'ax t', x: 4, y: 22 }, 't (virtual)'),
  );

  m.lanes.forEach((name, tid) => {
    const y = laneY(tid);
    const lane: string[] = [
      leaf('rect', { class: tid % 2 === 0 ? 'lane-bg' : 'lane-bg alt', x: 0, y, width: col.width, height: LANE_H }),
    ];
    lane.push(el('text', { class: 'lane-name', x: 6, y: y + ROW_Y + ROW_H - 3 }, esc(name)));
    for (const s of m.spans) if (s.tid === tid) lane.push(span(s, col.x(s.from), col.x(s.to) + col.w(s.to), y));
    for (const c of m.calls) {
      if (c.tid !== tid) continue;
      const x0 = col.x(c.from);
      const x1 = col.x(c.to) + col.w(c.to);
      const cy = y + CALL_Y + c.depth * CALL_GAP;
      const tip = title(
        `${c.fn}${c.arg !== null ? ' ' + c.arg : ''}: steps ${c.from}–${c.to}${c.open ? ' (not returned at the end)' : ` = ${c.value ?? ''}`}`,
      );
      lane.push(
        el(
          'rect',
          { class: c.open ? 'call open' : 'call', x: x0, y: cy, width: Math.max(2, x1 - x0), height: CALL_H },
          tip,
        ),
      );
      if (x1 - x0 > c.fn.length * 5.5 + 4 && c.depth === 0)
        lane.push(el('text', { class: 'call-name', x: x0 + 2, y: cy + CALL_H + 9 }, esc(c.fn)));
    }
    for (const c of m.cells)
      if (c.tid === tid) lane.push(mark(c, col.x(c.step), col.w(c.step), y, title(cellTitle(m, c))));
    parts.push(el('g', { class: 'lane', 'data-tid': tid, 'data-name': name }, ...lane));
  });

  for (const a of m.arrows) {
    if (a.fromTid === a.toTid) continue;
    const x0 = col.x(a.fromStep) + col.w(a.fromStep) / 2;
    const x1 = col.x(a.toStep) + col.w(a.toStep) / 2;
    const y0 = laneY(a.fromTid) + ROW_Y + ROW_H / 2;
    // the head stops short of the target's mark, on the side the arrow comes from
    const y1 = laneY(a.toTid) + ROW_Y + ROW_H / 2 + (a.toTid > a.fromTid ? -6 : 6);
    const bend = Math.max(6, Math.abs(x1 - x0) / 2);
    const what = { signal: 'signal woke', broadcast: 'broadcast woke', spawn: 'spawned', join: 'joined by' }[a.kind];
    const tip = title(
      `${m.lanes[a.fromTid] ?? a.fromTid} (step ${a.fromStep}) ${what} ${m.lanes[a.toTid] ?? a.toTid} (step ${a.toStep})`,
    );
    parts.push(
      el(
        'path',
        {
          class: `ar ar-${a.kind}`,
          d: `M${num(x0)} ${num(y0)}C${num(x0 + bend)} ${num(y0)} ${num(x1 - bend)} ${num(y1)} ${num(x1)} ${num(y1)}`,
          'marker-end': 'url(#arrowhead)',
        },
        tip,
      ),
    );
  }

  if (m.violation !== null) {
    const v = m.violation;
    const x = col.x(v.step);
    const tip = title(
      `step ${v.step}: VIOLATED ${v.property}${opts.statement ? `: ${opts.statement}` : ''}\n${v.detail}`,
    );
    // drawn first so the marks stay on top of the band
    parts.unshift(
      el(
        'rect',
        {
          class: 'vband',
          'data-violation-step': v.step,
          x: x - 1,
          y: TOP - 4,
          width: col.w(v.step) + 2,
          height: lanesBottom - TOP + 8,
        },
        tip,
      ),
    );
    const label = `step ${v.step}: ${v.property}`;
    // right-aligned to the band when it sits near the right end
    const anchorEnd = x > col.width - label.length * 6.5 - 20;
    parts.push(
      el(
        'text',
        {
          class: 'vlabel',
          x: anchorEnd ? x + col.w(v.step) : x,
          y: lanesBottom + 16,
          'text-anchor': anchorEnd ? 'end' : null,
        },
        esc(label),
        tip,
      ),
    );
  }

  const label = `${m.lanes.length} threads, steps ${m.firstStep}–${m.lastStep}${m.violation !== null ? `, violation at step ${m.violation.step}` : ''}`;
  return el(
    'svg',
    {
      class: `lanes-svg axis-${axis}`,
      xmlns: 'http://www.w3.org/2000/svg',
      width: col.width,
      height,
      viewBox: `0 0 ${num(col.width)} ${height}`,
      role: 'img',
      'aria-label': label,
    },
    ...parts,
  );
}

/** Colour key for the lanes, marks and spans. */
export function laneLegend(): string {
  const item = (cls: string, text: string, shape = 'rect'): string =>
    el(
      'span',
      { class: 'key' },
      el(
        'svg',
        { width: 14, height: 12, viewBox: '0 0 14 12' },
        shape === 'rect'
          ? leaf('rect', { class: cls, x: 1, y: 1, width: 12, height: 10 })
          : leaf('circle', { class: cls, cx: 7, cy: 6, r: 4 }),
      ),
      esc(text),
    );
  return el(
    'p',
    { class: 'legend' },
    item('lane-bg alt', 'a lane: one thread'),
    item('s-mx', 'holds mx'),
    item('s-wait-cv', 'waits on cv'),
    item('s-wait-cv_take', 'waits on cv_take'),
    item('m k-mutex', 'lock / unlock'),
    item('m k-notify', 'signal / broadcast'),
    item('m k-woken', 'woken', 'circle'),
    item('m k-spurious', 'spurious wakeup'),
    item('m k-backend', 'backend op'),
    item('m k-engine', 'engine op'),
    item('m k-fault', 'FAILED'),
    item('m k-violation', 'violation', 'circle'),
    item('vband', 'the violating step'),
    item('call', 'inside a tier call'),
  );
}
