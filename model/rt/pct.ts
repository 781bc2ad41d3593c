/**
 * PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
 * ASPLOS 2010), as a scheduling strategy.
 *
 * Each run draws distinct random priorities for the threads (all at least `depth`) and
 * `depth - 1` change points uniformly over steps 1..k. At every choice point the
 * highest-priority runnable thread moves; when the thread about to execute step k_i is
 * the one at change point i, its priority drops to `depth - i`, below every initial
 * priority. A bug of depth d (d ordering constraints between steps) in a program of n
 * threads and at most k steps is then hit with probability at least 1/(n k^(d-1)) per run
 * (model/explore/pct_bound.ts turns that into a run budget).
 *
 * Choices PCT's model does not have, and what this strategy does with them:
 *  - a `signal` with several waiters: the highest-priority waiter wakes. Which waiter
 *    wakes is an ordering between those threads, so the same priorities decide it.
 *  - spurious wakeups: never taken while some thread can move. The paper's bound is over
 *    schedules of the program's own steps; an injected wakeup adds steps and would void
 *    it. When no thread can move and the scenario allows spurious wakeups, the
 *    highest-priority waiter gets one (the only way on). Bugs that need a spurious
 *    wakeup are the job of exhaustive search and of the random strategies.
 *
 * Invariants: the same seed, depth and k give the same priorities, change points and
 * path; `path` records option indices, so ChoicesStrategy(path) replays the run.
 */
import seedrandom from 'seedrandom';
import type { ChoiceContext, DecisionKind, Strategy } from './strategy.js';
import type { SimThread } from './thread.js';

export interface PctOptions {
  readonly seed: string;
  /** bug depth d >= 1: d - 1 priority change points */
  readonly depth: number;
  /** steps a run takes (k), measured beforehand; change points fall in 1..k */
  readonly steps: number;
  /** threads a run may create; priorities are drawn for this many tids */
  readonly maxThreads: number;
}

export class PctStrategy implements Strategy {
  readonly name = 'pct';
  readonly path: number[] = [];
  /** priority per tid; higher moves first */
  readonly priority: number[];
  /** change point i (0-based) is at step changeAt[i] (1-based step numbers) */
  readonly changeAt: number[];
  private stepNo = 0;
  /** threads that moved in this run (1 + the largest tid) */
  threadsSeen = 0;

  constructor(readonly opts: PctOptions) {
    if (!Number.isInteger(opts.depth) || opts.depth < 1)
      throw new RangeError(`PCT depth must be an integer >= 1 (got ${opts.depth})`);
    if (!Number.isInteger(opts.steps) || opts.steps < 1)
      throw new RangeError(`PCT needs k >= 1 steps (got ${opts.steps})`);
    const rng = seedrandom(opts.seed);
    // a random permutation of depth .. depth + maxThreads - 1 (Fisher-Yates)
    const prio: number[] = [];
    for (let i = 0; i < opts.maxThreads; i++) prio.push(opts.depth + i);
    for (let i = prio.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      const a = prio[i] ?? 0;
      prio[i] = prio[j] ?? 0;
      prio[j] = a;
    }
    this.priority = prio;
    this.changeAt = [];
    for (let i = 1; i < opts.depth; i++) this.changeAt.push(1 + Math.floor(rng() * opts.steps));
  }

  onStep(th: SimThread): void {
    this.stepNo++;
    if (th.tid >= this.threadsSeen) this.threadsSeen = th.tid + 1;
    for (let i = 0; i < this.changeAt.length; i++) {
      // change point i lowers the mover to depth - 1 - i (i is 0-based: d - (i+1))
      if (this.changeAt[i] === this.stepNo) this.priority[th.tid] = this.opts.depth - 1 - i;
    }
  }

  pick(n: number, kind: DecisionKind, ctx?: ChoiceContext): number {
    if (ctx === undefined)
      throw new Error("PCT needs the choice context (the candidates' thread ids) at every choice point");
    // moves come first; spurious-wakeup options only when nothing can move
    const limit = kind === 'thread' && ctx.runnable > 0 ? ctx.runnable : n;
    let best = 0;
    let bestPrio = -Infinity;
    for (let i = 0; i < limit; i++) {
      const th = ctx.options[i];
      const p = th === undefined ? -Infinity : this.prioOf(th.tid);
      if (p > bestPrio) {
        bestPrio = p;
        best = i;
      }
    }
    this.path.push(best);
    return best;
  }

  private prioOf(tid: number): number {
    const p = this.priority[tid];
    if (p === undefined)
      throw new RangeError(`PCT drew priorities for ${this.priority.length} threads; thread ${tid} has none`);
    return p;
  }
}
