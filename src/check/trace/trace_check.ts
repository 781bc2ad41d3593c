/**
 * Trace validation of a free run's log: its events, in the order the locks gave them
 * (trace_order.ts), walked through the protocol's rules (trace_rules.ts) until the log is
 * consumed whole or an event breaks a rule. What happens outside the tier's locks (`lk`
 * "-": calls and returns, an input written, a join) is ordered only by the counter it took,
 * not by a lock; where such an event is where a rule breaks, a bounded search moves it (and
 * the unlocked events just before it) to the other places its thread allows, after the
 * locked event it names in `after` and before its thread's next locked event, and keeps
 * the placement that gets furthest.
 *
 * The verdict says whether the whole trace was consumed, never only "no violation"; a
 * divergence names the last matched event, the guard or field that failed, and the
 * candidate actions there (each thread's next event in the log).
 *
 * Invariants: the same events give the same verdict (the search tries placements in a
 * fixed order, bounded by a count, never by time); a hole in the seq numbers stops the
 * walk there (an event is missing), the search never jumps one.
 */
import { describeEvent, type TraceEvent } from './trace_event.js';
import type { OrderedLog } from './trace_order.js';
import { TraceRules } from './trace_rules.js';

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
}

export interface TraceCheckOptions {
  /** placements the search may try in all (0: the seq order only) */
  readonly maxPlacements: number;
  /** how many unlocked events before a divergence the search may move */
  readonly window: number;
}

export const DEFAULT_TRACE_OPTIONS: TraceCheckOptions = { maxPlacements: 64, window: 8 };

interface Walked {
  /** index of the failing slot (slots.length: the end) or -1 when consumed whole */
  readonly at: number;
  readonly failed: string;
  readonly rules: TraceRules;
}

function walk(slots: readonly (TraceEvent | undefined)[], first: number): Walked {
  const rules = new TraceRules();
  for (let i = 0; i < slots.length; i++) {
    const e = slots[i];
    if (e === undefined) {
      const failed = `seq ${first + i}: missing from the log (it has seq ${first + i - 1} and the next event after): an event was dropped, or a shard is missing`;
      return { at: i, failed, rules };
    }
    const failed = rules.step(e);
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
  let slots = log.slots;
  let w = ending(walk(slots, log.first), slots.length);
  let tried = 0;
  while (w.at >= 0 && w.at < slots.length && slots[w.at] !== undefined && tried < o.maxPlacements) {
    const better = search(slots, log.first, w, o, o.maxPlacements - tried);
    tried += better.tried;
    if (better.slots === null) break;
    slots = better.slots;
    w = better.walked;
  }
  const consumed = w.at < 0 ? log.count : slots.slice(0, w.at).filter((e) => e !== undefined).length;
  if (w.at < 0) return { events: log.count, consumed, whole: true, divergence: null, placements: tried };
  return { events: log.count, consumed, whole: false, divergence: divergence(slots, log.first, w), placements: tried };
}

function divergence(slots: readonly (TraceEvent | undefined)[], first: number, w: Walked): Divergence {
  let last: TraceEvent | null = null;
  for (let i = Math.min(w.at, slots.length) - 1; i >= 0 && last === null; i--) last = slots[i] ?? null;
  const at = slots[w.at] ?? null;
  const missing = at === null && w.at < slots.length ? first + w.at : null;
  return { failed: w.failed, at, missing, lastMatched: last, candidates: candidates(slots, w.at) };
}

/** Each thread's next event from the divergence on: the actions the log offers there. */
function candidates(slots: readonly (TraceEvent | undefined)[], from: number): string[] {
  const seen = new Set<number>();
  const out: string[] = [];
  for (let i = from; i < slots.length && i < from + 4096 && out.length < 8; i++) {
    const e = slots[i];
    if (e === undefined || seen.has(e.tid)) continue;
    seen.add(e.tid);
    out.push(describeEvent(e));
  }
  return out;
}

const unlocked = (e: TraceEvent | undefined): boolean => e !== undefined && e.lk === '-';

/** Other placements of the unlocked events at and before the divergence, furthest first kept. */
function search(
  slots: readonly (TraceEvent | undefined)[],
  first: number,
  w: Walked,
  o: TraceCheckOptions,
  budget: number,
): { slots: (TraceEvent | undefined)[] | null; walked: Walked; tried: number } {
  let tried = 0;
  for (let j = w.at; j >= 0 && j >= w.at - o.window && tried < budget; j--) {
    const e = slots[j];
    if (e === undefined || !unlocked(e)) continue;
    for (const to of windowOf(slots, first, j, e)) {
      if (tried >= budget) break;
      tried++;
      const moved = slots.slice();
      moved.splice(j, 1);
      moved.splice(to > j ? to - 1 : to, 0, e);
      const m = ending(walk(moved, first), moved.length);
      if (m.at < 0 || m.at > w.at) return { slots: moved, walked: m, tried };
    }
  }
  return { slots: null, walked: w, tried };
}

/** The places an unlocked event may take: after its `after` event, before its thread's next locked event. */
function windowOf(slots: readonly (TraceEvent | undefined)[], first: number, j: number, e: TraceEvent): number[] {
  const lo = Math.max(e.after - first + 1, 0);
  let hi = j + 1;
  while (hi < slots.length && hi < j + 256) {
    const n = slots[hi];
    if (n === undefined || (n.tid === e.tid && n.lk !== '-')) break;
    hi++;
  }
  let lower = j;
  while (lower > lo && lower > j - 256 && slots[lower - 1]?.tid !== e.tid) lower--;
  const out: number[] = [];
  for (let d = 1; j + d <= hi || j - d >= lower; d++) {
    if (j + d + 1 <= hi) out.push(j + d + 1);
    if (j - d >= lower) out.push(j - d);
  }
  return out;
}
