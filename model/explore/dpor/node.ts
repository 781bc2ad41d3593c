/**
 * One position of the DPOR search tree: the state before the i-th event of the current
 * path, with what the search knows and still owes there.
 *
 *  - `enabled`: the events that could run there (one per thread that can move, plus a
 *    spurious wakeup per waiter while the budget lasts), with their footprints;
 *  - `sleep`: what was asleep on arrival (explored elsewhere, independent of the path
 *    since); `done`: branches already explored here. Together they are the sleep set a
 *    wakeup sequence is checked against;
 *  - `wut`: the wakeup tree, branches still to explore; `chosen` is the branch being
 *    explored and `guide` what its wakeup subtree asks of the positions below.
 *  - preemption bookkeeping (`budget` on arrival, whether the bound cut anything below),
 *    used when a bound is set;
 *  - for the state cache: its entry, and the summary of what ran below (dpor/cache.ts).
 *
 * Invariant: a branch is never both in `done` and in `wut`; `chosen` is in neither.
 */
import type { EventFp } from './dependence.js';
import type { Branch, WakeupNode } from './wakeup_tree.js';

/** The state cache's record of a position (dpor/cache.ts). */
export interface CacheEntry {
  /** keys of the trusted arrival sleep set, sorted */
  readonly sleepKeys: readonly number[];
  readonly budget: number;
  /** the thread that moved last (under a bound it decides what preempts) */
  readonly lastTid: number;
  /** set when the position's subtree is finished: per thread, footprints run below it */
  summary: Int32Array | null;
  complete: boolean;
}

export interface EnabledEvent {
  readonly key: number;
  readonly fp: EventFp;
  /** moving it here would preempt the thread that moved last */
  readonly preempts: boolean;
}

/** An explored or sleeping branch, and whether it can be trusted under a bound. */
export interface DoneBranch extends Branch {
  /** its subtree was explored without the preemption bound cutting anything */
  readonly complete: boolean;
}

export class DporNode {
  chosen: { key: number; choice: number };
  guide: WakeupNode[] = [];
  readonly done: DoneBranch[] = [];
  wut: WakeupNode[] = [];
  /** the chosen branch's subtree lost something to the preemption bound */
  cut = false;
  /** some branch here was dropped for the bound, or explored incompletely */
  incomplete = false;
  /** a branch here or below is left to another part of a split search (dpor/shard.ts) */
  sharded = false;
  /** number of threads that exist here (a spawned thread exists after its spawn) */
  threadCount = 0;
  /** the state cache's record of this position (null: no cache) */
  entry: CacheEntry | null = null;
  /** per thread, the footprints of every event explored from here (dpor/cache.ts) */
  summary: Int32Array | null = null;

  constructor(
    readonly enabled: readonly EnabledEvent[],
    readonly sleep: readonly DoneBranch[],
    readonly budget: number,
    key: number,
  ) {
    this.chosen = { key, choice: -1 };
  }

  enabledEvent(key: number): EnabledEvent | undefined {
    return this.enabled.find((e) => e.key === key);
  }

  /** the sleep set wakeup sequences are checked against: arrival sleep and explored branches */
  sleepSet(): Branch[] {
    const out: Branch[] = [];
    for (const s of this.sleep) if (s.complete) out.push(s);
    for (const d of this.done) if (d.complete) out.push(d);
    return out;
  }

  /** a trusted sleeping or explored branch of this thread event (any wakeup choice) */
  isAsleep(key: number): boolean {
    return this.sleep.some((s) => s.complete && s.key === key) || this.done.some((d) => d.complete && d.key === key);
  }
}
