/**
 * Trace validation of a free run's log: its events, in the order the locks gave them
 * (trace_order.ts), walked through the protocol's rules (trace_rules.ts) until the log is
 * consumed whole or an event breaks a rule. What happens outside the tier's locks (`lk`
 * "-": calls and returns, an input written, a join) is ordered only by the counter it took,
 * not by a lock; where such an event is where a rule breaks, a bounded search moves it (and
 * the unlocked events just before it) to the other places its thread allows, after the
 * locked event it names in `after` and before its thread's next locked event, and keeps
 * the first placement that gets further (a walk from the start per placement: the search
 * runs only where an unlocked event broke a rule).
 *
 * The verdict says whether the whole trace was consumed, never only "no violation"; a
 * divergence names the last matched event, the guard or field that failed, and the
 * candidate actions there (each thread's next event in the log).
 *
 * With a setup (the run's configuration: trace_reference.ts), a log the rules consumed
 * whole is then replayed, in the order the rules consumed it, through the reference and
 * tierlab's standard checkers, as a run under tierlab's scheduler is: the rules are the
 * fast first pass (a log they reject needs no more), the reference judges what they cannot
 * (the admission rule's choices, the plan, the budgets, the gate's and the uploader's
 * steps, every return value), and its first violation is the divergence, unless moving an
 * unlocked event at or before it (the same bounded search, in orders the rules accept)
 * gets the reference further.
 *
 * Invariants: the same events give the same verdict (the search tries placements in a
 * fixed order, bounded by a count, never by time); a hole in the seq numbers stops the
 * walk there (an event is missing), the search never jumps one.
 */
import { EventView, type TraceColumns } from './trace_columns.js';
import type { TraceEvent } from './trace_event.js';
import type { OrderedLog } from './trace_order.js';
import { TraceRules } from './trace_rules.js';
import { nextOfEachThread } from './trace_candidates.js';
import { referenceReplay, type ReferenceSetup, type ReferenceVerdict } from './trace_reference.js';
import type { PropertyId } from '../catalogue.js';

export interface Divergence {
  /** the guard or field that failed, and what the log says against the protocol */
  readonly failed: string;
  /** the event that broke it (null: the log's end, or a missing seq) */
  readonly at: TraceEvent | null;
  /** the seq that is absent from the log, where that stopped the walk */
  readonly missing: number | null;
  readonly lastMatched: TraceEvent | null;
  /** each thread's next event where the walk stopped */
  readonly candidates: readonly string[];
}

export interface TraceVerdict {
  readonly events: number;
  readonly consumed: number;
  readonly whole: boolean;
  readonly divergence: Divergence | null;
  /** other placements of unlocked events the search tried */
  readonly placements: number;
  /** the replay through the reference (with a setup only, once the rules consumed the log whole) */
  readonly reference: ReferenceSummary | null;
}

export interface ReferenceSummary {
  /** events the reference replayed (all of them, or up to its violation or its cut) */
  readonly replayed: number;
  /** the first violation's property (null: none) */
  readonly property: PropertyId | null;
  /** why it stopped before the end without a violation (null: it did not) */
  readonly cut: string | null;
}

export interface TraceCheckOptions {
  /** placements the search may try in all (0: the seq order only) */
  readonly maxPlacements: number;
  /** how many unlocked events before a divergence the search may move */
  readonly window: number;
  /** replay the log through the reference and the standard checkers too (trace_reference.ts) */
  readonly reference?: ReferenceSetup;
}

export const DEFAULT_TRACE_OPTIONS: TraceCheckOptions = { maxPlacements: 64, window: 8 };

interface Walked {
  /** index of the failing slot (slots.length: the end) or -1 when consumed whole */
  readonly at: number;
  readonly failed: string;
  readonly rules: TraceRules;
}

function walk(cols: TraceColumns, slots: Int32Array, first: number): Walked {
  const rules = new TraceRules();
  const view = new EventView();
  for (let i = 0; i < slots.length; i++) {
    const r = slots[i] ?? -1;
    if (r < 0) {
      const failed = `seq ${first + i}: missing from the log (it has seq ${first + i - 1} and the next event after): an event was dropped, or a shard is missing`;
      return { at: i, failed, rules };
    }
    const failed = rules.step(cols.load(view, r));
    if (failed !== null) return { at: i, failed, rules };
  }
  return { at: -1, failed: '', rules };
}

/** The walk's end: every call returned, no thread still inside a section of mx. */
function ending(w: Walked, n: number): Walked {
  if (w.at >= 0) return w;
  for (const [tid, c] of w.rules.calls)
    return {
      at: n,
      failed: `end: the log ends inside thread ${tid}'s ${c.fn} (called at seq ${c.seq})`,
      rules: w.rules,
    };
  const h = w.rules.holder;
  if (h !== null)
    return {
      at: n,
      failed: `end: the log ends inside thread ${h.tid}'s section ${h.sec} of mx (since seq ${h.since})`,
      rules: w.rules,
    };
  return w;
}

export function checkTrace(log: OrderedLog, o: TraceCheckOptions = DEFAULT_TRACE_OPTIONS): TraceVerdict {
  const cols = log.cols;
  let slots = log.slots;
  let w = ending(walk(cols, slots, log.first), slots.length);
  let tried = 0;
  while (unlockedAt(cols, slots, w.at) && tried < o.maxPlacements) {
    const better = search(cols, slots, log.first, w, o, o.maxPlacements - tried);
    tried += better.tried;
    if (better.slots === null) break;
    slots = better.slots;
    w = better.walked;
  }
  if (w.at < 0) {
    const whole = { events: log.count, consumed: log.count, whole: true, divergence: null, placements: tried };
    if (o.reference === undefined) return { ...whole, reference: null };
    return withReference(whole, { cols, slots, first: log.first }, o, o.maxPlacements - tried);
  }
  let consumed = 0;
  for (let i = 0; i < w.at; i++) if ((slots[i] ?? -1) >= 0) consumed++;
  const d = divergence(cols, slots, log.first, w);
  return { events: log.count, consumed, whole: false, divergence: d, placements: tried, reference: null };
}

/**
 * The rules consumed the log whole: the reference's replay of the same order decides.
 * Where it finds a violation at or just after an event outside the locks, the placement
 * search moves that event (as the rules' search does, within what its thread allows and
 * what the rules accept) and keeps the first order the reference gets further in.
 */
function withReference(
  v: Omit<TraceVerdict, 'reference'>,
  log: { readonly cols: TraceColumns; readonly slots: Int32Array; readonly first: number },
  o: TraceCheckOptions,
  budget: number,
): TraceVerdict {
  const setup = o.reference;
  if (setup === undefined) return { ...v, reference: null };
  let order = log.slots;
  let r = referenceReplay(log.cols, order, setup);
  let tried = 0;
  while (r.property !== null && tried < budget) {
    const better = referenceSearch(log, order, r, { ...o, reference: setup }, budget - tried);
    tried += better.tried;
    if (better.order === null) break;
    order = better.order;
    r = better.verdict;
  }
  const reference = { replayed: r.replayed, property: r.property, cut: r.cut };
  const placements = v.placements + tried;
  if (r.property === null) return { ...v, placements, reference };
  const divergence: Divergence = {
    failed: `${r.property} (the reference and the standard checkers): ${r.detail}`,
    at: r.at,
    missing: null,
    lastMatched: r.lastMatched,
    candidates: r.candidates,
  };
  return { ...v, consumed: r.replayed, whole: false, divergence, placements, reference };
}

/** Other places of the unlocked events at and before the reference's violation (bounded by `budget`). */
function referenceSearch(
  log: { readonly cols: TraceColumns; readonly first: number },
  order: Int32Array,
  r: ReferenceVerdict,
  o: TraceCheckOptions & { readonly reference: ReferenceSetup },
  budget: number,
): { order: Int32Array | null; verdict: ReferenceVerdict; tried: number } {
  const cols = log.cols;
  const at = r.atRow >= 0 ? order.indexOf(r.atRow) : -1;
  let tried = 0;
  for (let j = at; j >= 0 && j >= at - o.window && tried < budget; j--) {
    const row = order[j] ?? -1;
    if (row < 0 || cols.lk[row] !== 0) continue;
    for (const to of windowOf(cols, order, log.first, j, cols.event(row))) {
      if (tried >= budget) break;
      tried++;
      const moved = moveSlot(order, j, to);
      if (ending(walk(cols, moved, log.first), moved.length).at >= 0) continue;
      const m = referenceReplay(cols, moved, o.reference);
      if (m.property === null || m.replayed > r.replayed) return { order: moved, verdict: m, tried };
    }
  }
  return { order: null, verdict: r, tried };
}

/** Whether the walk stopped at an event outside the locks (only those have other places to try). */
function unlockedAt(cols: TraceColumns, slots: Int32Array, at: number): boolean {
  const r = at >= 0 && at < slots.length ? (slots[at] ?? -1) : -1;
  return r >= 0 && cols.lk[r] === 0;
}

function divergence(cols: TraceColumns, slots: Int32Array, first: number, w: Walked): Divergence {
  let last: TraceEvent | null = null;
  for (let i = Math.min(w.at, slots.length) - 1; i >= 0 && last === null; i--) {
    const r = slots[i] ?? -1;
    if (r >= 0) last = cols.event(r);
  }
  const r = w.at < slots.length ? (slots[w.at] ?? -1) : -1;
  const at = r >= 0 ? cols.event(r) : null;
  const missing = at === null && w.at < slots.length ? first + w.at : null;
  return { failed: w.failed, at, missing, lastMatched: last, candidates: nextOfEachThread(cols, slots, w.at) };
}

/** Other placements of the unlocked events at and before the divergence, furthest first kept. */
function search(
  cols: TraceColumns,
  slots: Int32Array,
  first: number,
  w: Walked,
  o: TraceCheckOptions,
  budget: number,
): { slots: Int32Array | null; walked: Walked; tried: number } {
  let tried = 0;
  for (let j = w.at; j >= 0 && j >= w.at - o.window && tried < budget; j--) {
    const r = slots[j] ?? -1;
    if (r < 0) continue;
    const e = cols.event(r);
    if (e.lk !== '-') continue;
    for (const to of windowOf(cols, slots, first, j, e)) {
      if (tried >= budget) break;
      tried++;
      const moved = moveSlot(slots, j, to);
      const m = ending(walk(cols, moved, first), moved.length);
      if (m.at < 0 || m.at > w.at) return { slots: moved, walked: m, tried };
    }
  }
  return { slots: null, walked: w, tried };
}

/** The order with the event at j moved to stand before the one now at `to`. */
function moveSlot(slots: Int32Array, j: number, to: number): Int32Array {
  const out = slots.slice();
  const r = slots[j] ?? -1;
  if (to > j) {
    out.copyWithin(j, j + 1, to);
    out[to - 1] = r;
  } else {
    out.copyWithin(to + 1, to, j);
    out[to] = r;
  }
  return out;
}

/** The places an unlocked event may take: after its `after` event, before its thread's next locked event. */
function windowOf(cols: TraceColumns, slots: Int32Array, first: number, j: number, e: TraceEvent): number[] {
  const tidOf = (i: number): number => {
    const r = slots[i] ?? -1;
    return r < 0 ? -1 : (cols.num[1]?.[r] ?? -1);
  };
  const lockedOf = (i: number): boolean => {
    const r = slots[i] ?? -1;
    return r < 0 || cols.lk[r] !== 0;
  };
  const lo = Math.max(e.after - first + 1, 0);
  let hi = j + 1;
  while (hi < slots.length && !(tidOf(hi) === e.tid && lockedOf(hi))) hi++;
  let lower = j;
  while (lower > lo && lower > j - 256 && tidOf(lower - 1) !== e.tid) lower--;
  const out: number[] = [];
  for (let d = 1; j + d <= hi || j - d >= lower; d++) {
    if (j + d + 1 <= hi) out.push(j + d + 1);
    if (j - d >= lower) out.push(j - d);
  }
  return out;
}
