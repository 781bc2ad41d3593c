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

export type DecisionKind = 'thread' | 'wake';

export interface Strategy {
  readonly name: string;
  /** an option in [0, n); n > 1 */
  pick(n: number, kind: DecisionKind): number;
  /** option index taken at each choice point so far */
  readonly path: number[];
}

/** Follows a list of small integers (fast-check's arrays, replays); 0 once exhausted. */
export class ChoicesStrategy implements Strategy {
  readonly name = 'choices';
  readonly path: number[] = [];
  private next = 0;

  constructor(private readonly choices: readonly number[]) {}

  pick(n: number): number {
    const c = this.next < this.choices.length ? (this.choices[this.next] ?? 0) : 0;
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
