/**
 * The DPOR search tree of a search whose runs execute on several worker threads at once
 * (dpor/parallel.ts). The one-thread search (dpor/search.ts) keeps only the current path,
 * as a stack; here several paths are explored at once, so the tree keeps every position
 * that still has a branch running or pending, and each position has, besides its arrival
 * sleep set, its explored branches (`done`) and its wakeup tree (`wut`, pending), the
 * branches being explored now (`active`), in the order they were started.
 *
 * Why that is the one-thread search, only interleaved: at a position, the one-thread
 * search explores branches one after the other, and a branch started later has the
 * earlier ones in its sleep set. Here a branch started later gets every branch started
 * before it, finished or not, in its sleep set (an unfinished one will be finished: its
 * exploration never depends on branches started after it). A race reversal v found by a
 * run is inserted at position n as the one-thread search would at that moment:
 *  - covered when a weak initial of v sleeps there, is explored there, or is a branch
 *    started before the run's own branch at n (in the one-thread order, all explored);
 *  - otherwise it walks into branches started after the run's (in the one-thread order,
 *    still pending) and then the pending wakeup tree. Below a started branch the walk
 *    goes on at its child position, which is checked the same way (its sleep set and
 *    explored branches cover what they cover, by the completeness of optimal DPOR at
 *    every finished branch); a branch whose job is still in flight has no child here yet
 *    (its thread owns the subtree for a slice), so the rest of v waits on it (`held`)
 *    and is inserted at the child when the job hands the subtree's rest back, or is
 *    covered when the job explored the whole subtree (a finished branch, as above), or
 *    when the branch carries no wakeup subtree (a leaf of the wakeup tree, as in
 *    insertSequence).
 * Inside a job's subtree its thread runs the one-thread search itself, whose order there
 * is the one-thread order; the races of its runs that land above the subtree come back
 * with its report and are inserted here as any run's.
 * A position is finished when nothing is active or pending there; it then counts as an
 * explored branch of its parent, and the search ends when the root is finished.
 *
 * Invariants: a branch is in exactly one of `wut`, `active`, `done` of its position;
 * `serial` grows with the start order across the whole tree; only unbounded, stateless
 * searches use this tree (no budget, no cache entries).
 */
import type { DoneBranch, EnabledEvent } from './node.js';
import { insertSequence, type Branch, type WakeupNode, type WakeupSequence } from './wakeup_tree.js';

/** A branch being explored: its start number, its child position once a run reached it. */
export interface ActiveBranch extends Branch {
  choice: number;
  readonly serial: number;
  child: TreeNode | null;
  /** the wakeup subtree the branch's run follows below it */
  readonly guide: readonly WakeupNode[];
  /** insertions that reached this branch before its child existed */
  readonly held: WakeupSequence[];
}

export class TreeNode {
  readonly done: DoneBranch[] = [];
  readonly active: ActiveBranch[] = [];

  constructor(
    readonly parent: TreeNode | null,
    /** the parent's branch that leads here */
    readonly via: ActiveBranch | null,
    readonly depth: number,
    readonly enabled: readonly EnabledEvent[],
    /** arrival sleep set */
    readonly sleep: readonly DoneBranch[],
    readonly wut: WakeupNode[],
    readonly threadCount: number,
  ) {}

  enabledEvent(key: number): EnabledEvent | undefined {
    return this.enabled.find((e) => e.key === key);
  }

  /** what a branch started now has asleep: arrival sleep, explored and started branches */
  sleepForNew(): DoneBranch[] {
    const out: DoneBranch[] = [...this.sleep, ...this.done];
    for (const a of this.active) out.push({ key: a.key, choice: a.choice, fp: a.fp, complete: true });
    return out;
  }

  /** a branch with this key (and choice, -1 matching any) is explored, started or pending */
  knows(b: Branch): boolean {
    const same = (c: Branch): boolean => c.key === b.key && (c.choice === b.choice || c.choice < 0 || b.choice < 0);
    return this.sleep.some(same) || this.done.some(same) || this.active.some(same) || this.wut.some(same);
  }

  get finished(): boolean {
    return this.active.length === 0 && this.wut.length === 0;
  }
}

/**
 * Inserts v at `node`, where the inserting run took the branch started as `runSerial`
 * (-1: the run did not pass here). Returns the position that got a new pending branch
 * (or whose started branch holds v), null when v was covered.
 */
export function insertInTree(node: TreeNode, v: WakeupSequence, runSerial: number): TreeNode | null {
  let at: TreeNode = node;
  let own = runSerial;
  for (;;) {
    for (const s of at.sleep) if (v.weakInitial(s) !== null) return null;
    for (const d of at.done) if (v.weakInitial(d) !== null) return null;
    for (const a of at.active) if (a.serial < own && v.weakInitial(a) !== null) return null;
    let next: ActiveBranch | null = null;
    for (const a of at.active) {
      if (a.serial <= own) continue;
      const i = v.weakInitial(a);
      if (i === null) continue;
      v.take(i);
      next = a;
      break;
    }
    if (next === null) return insertSequence(at.wut, [], v) ? at : null;
    if (v.empty) return null;
    if (next.child === null) {
      if (next.guide.length === 0) return null;
      next.held.push(v);
      return at;
    }
    at = next.child;
    own = -1;
  }
}

/** A single event to explore at `node` (a full-expansion backtrack point). */
export function offerInTree(node: TreeNode, b: Branch): boolean {
  if (node.knows(b)) return false;
  node.wut.push({ key: b.key, choice: b.choice, fp: b.fp, children: [] });
  return true;
}

/**
 * Branch `a` of `node` is explored; returns the root when that finished the whole tree,
 * else null. Finished positions count as explored branches of their parents.
 */
export function branchDone(node: TreeNode, a: ActiveBranch): TreeNode | null {
  let at: TreeNode = node;
  let branch = a;
  for (;;) {
    const i = at.active.indexOf(branch);
    if (i < 0) throw new Error('internal error: a branch finished twice');
    at.active.splice(i, 1);
    at.done.push({ key: branch.key, choice: branch.choice, fp: branch.fp, complete: true });
    if (!at.finished) return null;
    if (at.parent === null || at.via === null) return at;
    branch = at.via;
    at = at.parent;
  }
}
