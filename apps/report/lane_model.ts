/**
 * What a lane diagram shows, computed from a trace's typed records (model/rt/trace_data.ts:
 * step, virtual time, thread, event, words), before any drawing: per thread and step the
 * records that happened there; spans while a thread holds mx, waits on a condition
 * variable, or is woken but not yet back in mx; the tier calls a thread is inside; arrows
 * from the signal or broadcast that woke a waiter (and from spawn and end to join); the
 * violation.
 *
 * Invariants: every record of the window lands in exactly one cell (nothing is dropped);
 * a span or call left open at the end of the trace is drawn to the last step and marked
 * open; a virtual duration is the time the record's op added (the runtime advances time
 * only for world ops, so the difference to the previous record is that op's cost).
 */
import type { TraceData, TraceEventData } from '../../model/rt/trace_data.js';

export type { TraceData, TraceRecordData } from '../../model/rt/trace_data.js';

export interface CellItem {
  readonly text: string;
  readonly event: TraceEventData;
  /** virtual microseconds this record's op took */
  readonly dt: number;
}

/** What a cell is drawn as: its most telling event. */
export type CellKind =
  | 'violation'
  | 'fault'
  | 'woken'
  | 'spurious'
  | 'notify'
  | 'wait'
  | 'mutex'
  | 'backend'
  | 'engine'
  | 'op'
  | 'thread'
  | 'mark';

export interface Cell {
  readonly step: number;
  readonly tid: number;
  /** virtual time after the cell's last record */
  readonly t: number;
  readonly kind: CellKind;
  readonly items: readonly CellItem[];
}

export type SpanKind = 'mx' | 'wait-cv' | 'wait-cv_take' | 'woken';

export interface Span {
  readonly tid: number;
  readonly kind: SpanKind;
  readonly from: number;
  readonly to: number;
  /** still going when the trace ends */
  readonly open: boolean;
}

export interface CallSpan {
  readonly tid: number;
  readonly fn: string;
  readonly arg: string | null;
  readonly value: string | null;
  readonly depth: number;
  readonly from: number;
  readonly to: number;
  readonly open: boolean;
}

export interface Arrow {
  readonly kind: 'signal' | 'broadcast' | 'spawn' | 'join';
  readonly fromTid: number;
  readonly fromStep: number;
  readonly toTid: number;
  readonly toStep: number;
}

export interface LaneModel {
  readonly lanes: readonly string[];
  readonly firstStep: number;
  readonly lastStep: number;
  /** steps before the window that were not drawn (long traces) */
  readonly elidedSteps: number;
  readonly cells: readonly Cell[];
  readonly spans: readonly Span[];
  readonly calls: readonly CallSpan[];
  readonly arrows: readonly Arrow[];
  readonly violation: {
    readonly step: number;
    readonly tid: number;
    readonly property: string;
    readonly detail: string;
  } | null;
  /** virtual time after each drawn step (the time ruler) */
  readonly timeAt: ReadonlyMap<number, number>;
}

/** Longer traces are drawn from this many steps before their end (the violation is at the end). */
export const MAX_DRAWN_STEPS = 2500;

const PRIORITY: readonly CellKind[] = [
  'violation',
  'fault',
  'spurious',
  'woken',
  'notify',
  'wait',
  'mutex',
  'backend',
  'engine',
  'op',
  'thread',
  'mark',
];

function kindOf(e: TraceEventData): CellKind {
  switch (e.k) {
    case 'violation':
      return 'violation';
    case 'op':
      return e.failed ? 'fault' : e.family;
    case 'woken':
      return e.how === 'spurious' ? 'spurious' : 'woken';
    case 'signal':
    case 'broadcast':
      return 'notify';
    case 'wait':
      return 'wait';
    case 'lock':
    case 'unlock':
    case 'retake':
      return 'mutex';
    case 'spawn':
      return e.tid < 0 ? 'fault' : 'thread';
    case 'join':
    case 'end':
      return 'thread';
    default:
      return 'mark';
  }
}

/** The model of the last `lastSteps` steps of a trace (at most MAX_DRAWN_STEPS): a run ends at its violation. */
export function buildLaneModel(trace: TraceData, lastSteps = MAX_DRAWN_STEPS): LaneModel {
  const records = trace.records;
  const lastStep = records.reduce((a, r) => Math.max(a, r.step), 0);
  const firstDrawn = Math.max(records[0]?.step ?? 0, lastStep - Math.min(lastSteps, MAX_DRAWN_STEPS) + 1);
  const laneCount = Math.max(trace.threadNames.length, ...records.map((r) => r.tid + 1));
  const lanes = Array.from({ length: laneCount }, (_, i) => trace.threadNames[i] ?? `t${i}`);

  const cellItems = new Map<string, { step: number; tid: number; t: number; items: CellItem[] }>();
  const spans: Span[] = [];
  const calls: CallSpan[] = [];
  const arrows: Arrow[] = [];
  const timeAt = new Map<number, number>();
  const openSpan = new Map<number, { kind: SpanKind; from: number }>();
  const callStack = new Map<number, { fn: string; arg: string | null; from: number }[]>();
  /** per thread: step of its latest signal or broadcast (a woken record follows it at once) */
  const lastNotify = new Map<number, { step: number; kind: 'signal' | 'broadcast' }>();
  const endedAt = new Map<number, number>();
  let violation: LaneModel['violation'] = null;
  let prevT = 0;

  const clip = (s: number): number => Math.max(s, firstDrawn);
  const close = (tid: number, to: number): void => {
    const o = openSpan.get(tid);
    if (o === undefined) return;
    openSpan.delete(tid);
    if (to >= firstDrawn) spans.push({ tid, kind: o.kind, from: clip(o.from), to, open: false });
  };
  const open = (tid: number, kind: SpanKind, from: number): void => {
    close(tid, from);
    openSpan.set(tid, { kind, from });
  };

  for (const r of records) {
    const e = r.event;
    const dt = Math.max(0, r.t - prevT);
    prevT = r.t;
    if (r.step >= firstDrawn) {
      const key = `${r.tid}:${r.step}`;
      let c = cellItems.get(key);
      if (c === undefined) {
        c = { step: r.step, tid: r.tid, t: r.t, items: [] };
        cellItems.set(key, c);
      }
      c.items.push({ text: r.text, event: e, dt });
      c.t = r.t;
      timeAt.set(r.step, r.t);
    }
    switch (e.k) {
      case 'lock':
      case 'retake':
        open(r.tid, 'mx', r.step);
        break;
      case 'unlock':
        close(r.tid, r.step);
        break;
      case 'wait':
        open(r.tid, e.cv === 'cv' ? 'wait-cv' : 'wait-cv_take', r.step);
        break;
      case 'woken': {
        open(r.tid, 'woken', r.step);
        const n = e.how !== 'spurious' ? lastNotify.get(e.by) : undefined;
        if (n !== undefined && r.step >= firstDrawn && n.step >= firstDrawn) {
          arrows.push({ kind: n.kind, fromTid: e.by, fromStep: n.step, toTid: r.tid, toStep: r.step });
        }
        break;
      }
      case 'signal':
      case 'broadcast':
        lastNotify.set(r.tid, { step: r.step, kind: e.k });
        break;
      case 'spawn':
        if (r.step >= firstDrawn && e.tid >= 0)
          arrows.push({ kind: 'spawn', fromTid: r.tid, fromStep: r.step, toTid: e.tid, toStep: r.step });
        break;
      case 'join': {
        const ended = endedAt.get(e.tid);
        if (ended !== undefined && ended >= firstDrawn) {
          arrows.push({ kind: 'join', fromTid: e.tid, fromStep: ended, toTid: r.tid, toStep: r.step });
        }
        break;
      }
      case 'end':
        close(r.tid, r.step);
        endedAt.set(r.tid, r.step);
        break;
      case 'call': {
        const stack = callStack.get(r.tid) ?? [];
        stack.push({ fn: e.fn, arg: e.args, from: r.step });
        callStack.set(r.tid, stack);
        break;
      }
      case 'ret': {
        const stack = callStack.get(r.tid) ?? [];
        // the innermost open call of that name (calls nest; a mismatched return closes nothing)
        const at = stack.map((c) => c.fn).lastIndexOf(e.fn);
        if (at >= 0) {
          const c = stack[at];
          stack.splice(at);
          if (c !== undefined && r.step >= firstDrawn) {
            calls.push({
              tid: r.tid,
              fn: c.fn,
              arg: c.arg,
              value: e.value,
              depth: at,
              from: clip(c.from),
              to: r.step,
              open: false,
            });
          }
        }
        break;
      }
      case 'violation':
        violation = { step: r.step, tid: r.tid, property: e.property, detail: e.detail };
        break;
      default:
        break;
    }
  }
  for (const [tid, o] of openSpan) spans.push({ tid, kind: o.kind, from: clip(o.from), to: lastStep, open: true });
  for (const [tid, stack] of callStack) {
    stack.forEach((c, depth) =>
      calls.push({ tid, fn: c.fn, arg: c.arg, value: null, depth, from: clip(c.from), to: lastStep, open: true }),
    );
  }
  const cells: Cell[] = [...cellItems.values()].map((c) => ({
    step: c.step,
    tid: c.tid,
    t: c.t,
    items: c.items,
    kind: PRIORITY.find((k) => c.items.some((i) => kindOf(i.event) === k)) ?? 'mark',
  }));
  return {
    lanes,
    firstStep: firstDrawn,
    lastStep,
    elidedSteps: firstDrawn - (records[0]?.step ?? 0),
    cells,
    spans,
    calls,
    arrows,
    violation,
    timeAt,
  };
}

/** Who holds mx at a step, from the model's spans (the state the protocol guards). */
export function mxHolderAt(model: LaneModel, step: number): number | null {
  const s = model.spans.find((x) => x.kind === 'mx' && x.from <= step && step <= x.to);
  return s?.tid ?? null;
}
