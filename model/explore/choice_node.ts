/**
 * A node of the search tree: one choice point of the run, as first reached through the
 * path above it, with what the search has done there.
 *
 * Options are named by `key` (tid * 2, plus 1 for a spurious wakeup of that tid), so a
 * sleep set can say "thread 3's next step" independently of option order, which changes
 * with the current thread.
 *
 * Sleep-set entries carry how far they can be trusted under a preemption bound:
 *  - `unbounded`: the sibling's subtree was explored with no pruning by the bound (and
 *    no pruning by bounded entries), so every continuation through it is covered;
 *  - otherwise the entry was added by the cost rule (see explorer.ts): it covers only
 *    traces within the bound, and any pruning it does makes this subtree incomplete.
 *
 * Invariants: `eligible` is fixed when the node is made (budget and arrival sleep set
 * are properties of the path); `explored` lists finished options in exploration order.
 */
import type { DecisionKind } from '../rt/strategy.js';
import type { Footprint } from './footprint.js';

export interface SleepEntry {
  readonly key: number;
  readonly fp: Footprint;
  readonly unbounded: boolean;
}

export interface ExploredOption {
  readonly option: number;
  readonly key: number;
  readonly cost: number;
  readonly fp: Footprint;
  readonly complete: boolean;
}

export class ChoiceNode {
  /** options this node will explore, in order */
  readonly eligible: number[] = [];
  /** index into `eligible` of the option being explored */
  cursor = 0;
  readonly explored: ExploredOption[] = [];
  /** footprint of the step the current option took (set when that step runs) */
  chosenFp: Footprint | null = null;
  /** the current option's subtree has been explored without bound-induced pruning */
  childComplete = true;
  /** some option was left out for the bound, or for a bounded sleep entry */
  prunedHere = false;

  constructor(
    readonly kind: DecisionKind,
    readonly keys: readonly number[],
    readonly costs: readonly number[],
    /** preemptions still allowed on arrival */
    readonly budget: number,
    /** the sleep set on arrival (thread nodes) */
    readonly sleep: readonly SleepEntry[],
  ) {}

  get chosen(): number {
    const o = this.eligible[this.cursor];
    if (o === undefined) throw new Error('choice node has no current option');
    return o;
  }

  get n(): number {
    return this.keys.length;
  }

  /** every option of this subtree was explored or covered without the bound's help */
  get complete(): boolean {
    return !this.prunedHere && this.explored.every((e) => e.complete);
  }
}

export function sleepIndexOf(sleep: readonly SleepEntry[], key: number): number {
  for (let i = 0; i < sleep.length; i++) if (sleep[i]?.key === key) return i;
  return -1;
}
