/**
 * Two small SVG charts for the report, drawn from numbers only: a line chart (series of
 * points over a linear or log x axis) and a horizontal bar chart (labelled bars, linear or
 * log, with an optional reference line such as a raw copy's bandwidth). Axes get round
 * ticks; every point and bar has a hover text with its exact value.
 */
import { el, esc, leaf, num, title } from './html.js';

export interface Series {
  readonly name: string;
  /** CSS class of the line: `a` or `b` (page.ts colours) */
  readonly cls: 'a' | 'b';
  readonly points: readonly (readonly [number, number])[];
}

/** 1234 -> 1.2k, 2500000 -> 2.5M, 0.25 -> 0.25 */
export function short(x: number): string {
  const a = Math.abs(x);
  if (a >= 1e9) return `${num(x / 1e9)}G`;
  if (a >= 1e6) return `${num(x / 1e6)}M`;
  if (a >= 1e4) return `${num(x / 1e3)}k`;
  if (a >= 1 || a === 0) return num(x);
  return String(Number(x.toPrecision(2)));
}

/** round ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten */
export function linearTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  // up to the first tick at or above hi, so the axis covers every value
  for (let v = Math.ceil(lo / step) * step; v < hi + step * (1 - 1e-9); v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** powers of ten covering [lo, hi] (lo > 0) */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

interface Scale {
  readonly at: (v: number) => number;
  readonly ticks: readonly number[];
}

function scale(values: readonly number[], from: number, to: number, log: boolean, zero: boolean): Scale {
  const pos = values.filter((v) => (log ? v > 0 : Number.isFinite(v)));
  let lo = pos.length > 0 ? Math.min(...pos) : log ? 1 : 0;
  let hi = pos.length > 0 ? Math.max(...pos) : 1;
  if (log) {
    const ticks = logTicks(lo, hi);
    lo = ticks[0] ?? lo;
    hi = ticks[ticks.length - 1] ?? hi;
    if (hi <= lo) hi = lo * 10;
    const l0 = Math.log10(lo);
    const l1 = Math.log10(hi);
    return { at: (v) => from + ((Math.log10(Math.max(v, lo)) - l0) / (l1 - l0)) * (to - from), ticks };
  }
  if (zero) lo = Math.min(0, lo);
  if (hi <= lo) hi = lo + 1;
  const ticks = linearTicks(lo, hi);
  hi = Math.max(hi, ticks[ticks.length - 1] ?? hi);
  return { at: (v) => from + ((v - lo) / (hi - lo)) * (to - from), ticks };
}

export function lineChart(opts: {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly logX?: boolean;
  readonly width?: number;
  readonly height?: number;
}): string {
  const W = opts.width ?? 380;
  const H = opts.height ?? 210;
  const L = 52;
  const R = 12;
  const T = 38;
  const B = 36;
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = opts.series.flatMap((s) => s.points.map((p) => p[1]));
  const sx = scale(xs, L, W - R, opts.logX === true, false);
  const sy = scale(ys, H - B, T, false, true);
  const parts: string[] = [el('text', { x: L, y: 14, class: 'ct' }, esc(opts.title))];
  for (const t of sy.ticks) {
    const y = sy.at(t);
    parts.push(
      leaf('line', { class: 'grid', x1: L, y1: y, x2: W - R, y2: y }),
      el('text', { class: 'ax', x: L - 4, y: y + 3, 'text-anchor': 'end' }, short(t)),
    );
  }
  const xTicks = opts.logX === true ? [...new Set(xs)].sort((a, b) => a - b) : sx.ticks;
  for (const t of xTicks)
    parts.push(el('text', { class: 'ax', x: sx.at(t), y: H - B + 13, 'text-anchor': 'middle' }, short(t)));
  parts.push(el('text', { class: 'ax', x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle' }, esc(opts.xLabel)));
  parts.push(
    el(
      'text',
      {
        class: 'ax',
        x: 10,
        y: (T + H - B) / 2,
        transform: `rotate(-90 10 ${num((T + H - B) / 2)})`,
        'text-anchor': 'middle',
      },
      esc(opts.yLabel),
    ),
  );
  opts.series.forEach((s, i) => {
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    parts.push(
      leaf('polyline', {
        class: `line-${s.cls}`,
        points: pts.map((p) => `${num(sx.at(p[0]))},${num(sy.at(p[1]))}`).join(' '),
      }),
    );
    for (const p of pts)
      parts.push(
        el(
          'circle',
          { class: `dot-${s.cls}`, cx: sx.at(p[0]), cy: sy.at(p[1]), r: 3 },
          title(`${s.name}: ${short(p[0])} -> ${short(p[1])}`),
        ),
      );
    // the legend, under the title
    const lx = L + 110 * i;
    parts.push(
      leaf('rect', { class: `dot-${s.cls}`, x: lx, y: 21, width: 10, height: 10 }),
      el('text', { class: 'ax', x: lx + 14, y: 30 }, esc(s.name)),
    );
  });
  return chartSvg(W, H, opts.title, parts);
}

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** CSS class: '' (default colour), 'alt', 'low', 'zero' */
  readonly cls?: string;
  readonly tip?: string;
}

export function barChart(opts: {
  readonly title: string;
  readonly unit: string;
  readonly bars: readonly Bar[];
  readonly logX?: boolean;
  readonly ref?: { readonly value: number; readonly label: string };
  readonly width?: number;
}): string {
  const W = opts.width ?? 640;
  const labelW = Math.min(300, 12 + 6.3 * Math.max(8, ...opts.bars.map((b) => b.label.length)));
  const L = labelW;
  const R = 70;
  const T = 24;
  const BAR = 16;
  const H = T + opts.bars.length * (BAR + 4) + 36;
  const values = [...opts.bars.map((b) => b.value), ...(opts.ref !== undefined ? [opts.ref.value] : [])];
  const sx = scale(values, L, W - R, opts.logX === true, true);
  const parts: string[] = [el('text', { x: 4, y: 14, class: 'ct' }, esc(opts.title))];
  const bottom = T + opts.bars.length * (BAR + 4);
  for (const t of sx.ticks) {
    const x = sx.at(t);
    parts.push(
      leaf('line', { class: 'grid', x1: x, y1: T - 2, x2: x, y2: bottom }),
      el('text', { class: 'ax', x, y: bottom + 12, 'text-anchor': 'middle' }, short(t)),
    );
  }
  parts.push(el('text', { class: 'ax', x: W - R, y: bottom + 26, 'text-anchor': 'end' }, esc(opts.unit)));
  opts.bars.forEach((b, i) => {
    const y = T + i * (BAR + 4);
    const x0 = opts.logX === true ? L : sx.at(0);
    const x1 = sx.at(b.value);
    const tip = title(b.tip ?? `${b.label}: ${short(b.value)} ${opts.unit}`);
    parts.push(el('text', { class: 'ax', x: L - 6, y: y + BAR - 4, 'text-anchor': 'end' }, esc(b.label)));
    parts.push(
      el(
        'rect',
        {
          class: `bar${b.cls !== undefined && b.cls !== '' ? ' ' + b.cls : ''}`,
          x: x0,
          y,
          width: Math.max(1, x1 - x0),
          height: BAR,
        },
        tip,
      ),
    );
    parts.push(el('text', { class: 'ax', x: Math.max(x0, x1) + 4, y: y + BAR - 4 }, short(b.value)));
  });
  if (opts.ref !== undefined) {
    const x = sx.at(opts.ref.value);
    parts.push(
      el(
        'line',
        { class: 'ref', x1: x, y1: T - 6, x2: x, y2: bottom + 2 },
        title(`${opts.ref.label}: ${short(opts.ref.value)} ${opts.unit}`),
      ),
    );
    parts.push(el('text', { class: 'ax', x: x + 3, y: T - 8 }, esc(`${opts.ref.label} ${short(opts.ref.value)}`)));
  }
  return chartSvg(W, H, opts.title, parts);
}

/** The chart's outer svg element: its size, and the title a screen reader says. */
function chartSvg(width: number, height: number, label: string, parts: readonly string[]): string {
  return el(
    'svg',
    {
      class: 'chart',
      xmlns: 'http://www.w3.org/2000/svg',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': label,
    },
    ...parts,
  );
}
