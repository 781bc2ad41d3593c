/**
 * Scheduling strategies: who decides each choice point of a run.
 *
 * A choice point offers n > 1 options (which runnable thread moves, which waiter a signal
 * wakes, a spurious wakeup). Option 0 is always the "quiet" one: the current thread goes
 * on, the oldest waiter wakes. So a schedule that is all zeros is the run without
 * preemptions, and a shrunk schedule names only the preemptions that matter.
 *
 * Every strategy records the path it took (the option index at each choice point):
 * replaying that path with `ChoicesStrategy` gives the same run, byte for byte.
 */
import seedrandom from 'seedrandom';
import type { SimThread } from './thread.js';

export type DecisionKind = 'thread' | 'wake';

/**
 * What a strategy may look at when it chooses: one object per runtime, filled in place
 * before each `pick` (no allocation on the hot path). Read it during `pick` only; the
 * runtime overwrites it at the next choice point. Strategies that do not need it (the
 * choice list, uniform random) ignore it.
 */
export interface ChoiceContext {
  /** for 'thread': the candidates in option order; options [0, runnable) move that
   *  thread, options [runnable, n) give that waiting thread a spurious wakeup.
   *  For 'wake': the waiters of the signalled cv, oldest first. */
  readonly options: readonly SimThread[];
  readonly runnable: number;
  /** tid of the thread that moved last (-1 before the first step) */
  readonly current: number;
  /** for 'thread': the current thread could continue, so it is option 0 and any other
   *  move is a preemption */
  readonly currentCanMove: boolean;
  /** tid holding mx, -1 when free */
  readonly mxOwner: number;
  /** tid holding the gate's gmx, -1 when free */
  readonly gmxOwner: number;
  /** steps executed so far in this run */
  readonly step: number;
}

export interface Strategy {
  readonly name: string;
  /** an option in [0, n); n > 1. The simulator's runtime always passes `ctx`; a caller
   *  that cannot (older code, the real world) may leave it out, and strategies that need
   *  it (PCT, exhaustive search) then refuse with an error. */
  pick(n: number, kind: DecisionKind, ctx?: ChoiceContext): number;
  /** option index taken at each choice point so far */
  readonly path: number[];
  /**
   * Optional: called before every step (choice or not) with the thread about to move
   * and whether it holds mx now. PCT counts steps with it; exhaustive search computes
   * what each step touches. Strategies without it cost the runtime one branch a step.
   */
  onStep?(th: SimThread, holdsMx: boolean, step: number, holdsGmx?: boolean): void;
  /** Optional: a spurious wakeup was injected into this waiting thread (chosen at a
   *  choice point or forced because nothing else could go on). */
  onSpurious?(th: SimThread): void;
  /**
   * Optional: a thread choice point is next, and nothing of its step has run: the state
   * is that of the step's start but for the list of options being filled (the scheduler
   * fills it again from the start). A restoring search saves the state here
   * (model/explore/state/restore/); runs resumed from it begin with the scheduler's choice.
   */
  atThreadChoice?(): void;
}

/** A given choice that names no option of its choice point. */
export interface OutOfRangeChoice {
  /** index in the choice list */
  readonly at: number;
  readonly choice: number;
  /** options the choice point had */
  readonly options: number;
}

/**
 * Follows a list of small integers (fast-check's arrays, replays); 0 once exhausted.
 * A choice of n or more at a point with n options is taken modulo n, so that any integer
 * array fast-check generates is a schedule; the first such choice is kept in
 * `outOfRange`, so that a replay, whose choices must be the path a run took, can refuse
 * a schedule it would otherwise read as another one.
 */
export class ChoicesStrategy implements Strategy {
  readonly name = 'choices';
  readonly path: number[] = [];
  outOfRange: OutOfRangeChoice | null = null;
  private next = 0;

  constructor(private readonly choices: readonly number[]) {}

  pick(n: number): number {
    const c = this.next < this.choices.length ? (this.choices[this.next] ?? 0) : 0;
    if (c >= n && this.outOfRange === null) this.outOfRange = { at: this.next, choice: c, options: n };
    this.next++;
    const option = c % n;
    this.path.push(option);
    return option;
  }

  /** how many given choices the run consumed */
  get consumed(): number {
    return Math.min(this.next, this.choices.length);
  }
}

/** Uniform random choices from a seed: fast soak runs. */
export class RandomStrategy implements Strategy {
  readonly name = 'random';
  readonly path: number[] = [];
  private readonly rng: seedrandom.PRNG;

  constructor(
    seed: string,
    /** chance of staying with option 0 (the quiet option), so runs are not all noise */
    private readonly stay = 0.5,
  ) {
    this.rng = seedrandom(seed);
  }

  pick(n: number): number {
    const option = this.rng() < this.stay ? 0 : 1 + Math.floor(this.rng() * (n - 1));
    this.path.push(option);
    return option;
  }
}

/** The shortest choice list that replays `path`: trailing quiet options are implied. */
export function trimPath(path: readonly number[]): number[] {
  let end = path.length;
  while (end > 0 && path[end - 1] === 0) end--;
  return path.slice(0, end);
}
