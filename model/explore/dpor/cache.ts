/**
 * The state cache of the DPOR search (stateful DPOR): a position whose state was
 * explored before is not explored again, and what the pruned continuation would have
 * raced with is accounted for by a summary.
 *
 * When is pruning sound? A finished position m of state s has explored, up to
 * equivalence, every continuation from s that does not start with an event asleep at m
 * (the per-call completeness of optimal DPOR, Abdulla et al., JACM 2017, Thm 7.4). A
 * later position q reaching the same s (state_digest.ts: tier, world, runtime, thread
 * positions) runs through the same states along any continuation, so every violation
 * reachable from q was reachable from m, provided
 *  - m's arrival sleep set is contained in q's (what m did not explore, q does not need);
 *  - with a preemption bound: nothing below m was cut by the bound, m had at least q's
 *    budget left, and the same thread had moved last (the cost of the next preemption);
 *  - the races between q's prefix and the pruned continuation still get reversed. DPOR
 *    would have found them by running the continuation; instead m keeps, per thread, the
 *    union of the footprints of every event its subtree ran (threads spawned there count
 *    for their spawner), and at q, for every event e of the prefix that may race with a
 *    thread's summary and is not ordered before that thread's position, that thread is
 *    backtracked at e as Flanagan and Godefroid's DPOR does (its next event there, or
 *    every enabled event when it has none), the stateful DPOR of Yang, Chen,
 *    Gopalakrishnan and Kirby (SPIN 2008) with a coarser summary.
 *
 * Invariants: only finished, complete entries prune; entries are immutable once finished.
 */
import { isSpurious, MxRole, type EventFp } from './dependence.js';
import type { CacheEntry, DporNode } from './node.js';
import type { HappensBefore } from './happens_before.js';
import { isSubset } from '../sorted_sets.js';
import { addChild } from './wakeup_tree.js';

export class StateCache {
  private readonly map = new Map<number, CacheEntry[]>();
  hits = 0;

  constructor(private readonly bounded: boolean) {}

  /** a finished entry for this state that covers a visit with this sleep set and budget */
  covering(digest: number, sleepKeys: readonly number[], budget: number, lastTid: number): CacheEntry | null {
    const list = this.map.get(digest);
    if (list === undefined) return null;
    for (const e of list) {
      if (e.summary === null || !e.complete || !isSubset(e.sleepKeys, sleepKeys)) continue;
      if (this.bounded && (e.budget < budget || e.lastTid !== lastTid)) continue;
      return e;
    }
    return null;
  }

  add(digest: number, entry: CacheEntry): void {
    const list = this.map.get(digest);
    if (list === undefined) this.map.set(digest, [entry]);
    else list.push(entry);
  }

  get size(): number {
    return this.map.size;
  }
}

const READS = 0;
const WRITES = 8;
const ROLES = 16;

/** One event as summary bits: objects read, written, and its mutex role (of either mutex:
 *  the summary does not tell mx from gmx, so it may see a race the two would not have,
 *  which only backtracks more). */
export function summaryBits(fp: EventFp): number {
  return (fp.reads << READS) | (fp.writes << WRITES) | (fp.mx === MxRole.None ? 0 : 1 << (ROLES + fp.mx));
}

/** Adds a finished child's summary to its parent's; threads the parent's event spawned count as its own. */
export function mergeSummary(into: Int32Array, from: Int32Array, threadsAtParent: number, parentTid: number): void {
  for (let t = 0; t < from.length; t++) {
    const bits = from[t] ?? 0;
    if (bits === 0) continue;
    const to = t < threadsAtParent ? t : parentTid;
    into[to] = (into[to] ?? 0) | bits;
  }
}

const SPURIOUS_ROLES = (1 << MxRole.Spurious) | (1 << MxRole.SpuriousHeld);

function mayRace(e: EventFp, bits: number): boolean {
  const reads = (bits >> READS) & 0xff;
  const writes = (bits >> WRITES) & 0xff;
  if ((e.writes & (reads | writes)) !== 0 || (writes & e.reads) !== 0) return true;
  const roles = bits >> ROLES;
  if (e.mx === MxRole.None || roles === 0) return false;
  if (isSpurious(e.mx) || (roles & SPURIOUS_ROLES) !== 0) return true;
  return e.mx === MxRole.Acquire && (roles & (1 << MxRole.Acquire)) !== 0;
}

/**
 * The run reached, at position q, a state whose continuation `summary` describes: offer
 * every event enabled before each prefix event the continuation may race with.
 */
export function expandForSummary(stack: readonly DporNode[], hb: HappensBefore, summary: Int32Array): number {
  let added = 0;
  for (let t = 0; t < summary.length; t++) {
    const bits = summary[t] ?? 0;
    if (bits === 0) continue;
    for (let e = 0; e < hb.length; e++) {
      const ev = hb.events[e];
      // the bit test first: most prefix events touch nothing the summary does
      if (ev === undefined || ev.tid === t || !mayRace(ev.fp, bits) || hb.orderedBeforeThread(e, t)) continue;
      added += backtrackThread(stack[e], t);
    }
  }
  return added;
}

/**
 * Flanagan and Godefroid's backtrack point: thread t's next event at `node` if it is
 * enabled there, else every enabled event.
 */
function backtrackThread(node: DporNode | undefined, t: number): number {
  if (node === undefined) return 0;
  // insertSingle with a branch of any wakeup choice (choice -1), its sleep test asked of
  // the node rather than of a list built for it: this runs for every racing prefix event
  // at every cache hit
  const own = node.enabled.some((en) => en.key >> 1 === t);
  let added = 0;
  for (const en of node.enabled) {
    if ((own && en.key >> 1 !== t) || node.isAsleep(en.key)) continue;
    if (addChild(node.wut, { key: en.key, choice: -1, fp: en.fp })) added++;
  }
  return added;
}
