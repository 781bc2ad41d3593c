/**
 * The mutable state of one simulated run, shared by the scheduler (scheduler.ts), the
 * sync semantics (sync.ts) and the step loop (runtime.ts): threads, the mutex owner, the
 * condition-variable queues, the clock, the budgets, and the trace.
 *
 * Invariants: at most one thread owns mx (mxOwner, -1 when free), and at most one the
 * gate's gmx (gmxOwner); a thread is on a cv queue exactly while its state is CvWait; `steps` counts executed steps, `now` is
 * virtual microseconds.
 */
import type { CvName, MutexName } from '../../src/ops.js';
import type { RunView } from '../../src/check/checker.js';
import type { RunLimits } from '../../src/check/limits.js';
import type { ChoiceContext, Strategy } from './strategy.js';
import type { SimThread } from './thread.js';
import type { Trace } from './trace.js';
import type { TraceEvent } from './trace_event.js';

export type MutableChoiceContext = { -readonly [K in keyof ChoiceContext]: ChoiceContext[K] };

export class RunState implements RunView {
  readonly threads: SimThread[] = [];
  mxOwner = -1;
  gmxOwner = -1;
  steps = 0;
  now = 0;
  spuriousLeft: number;
  /** step at which shutdown began (a `call shutdown` mark), -1 before */
  shutdownStep = -1;
  /** choice points decided by the strategy so far */
  decisions = 0;
  /** threads spawned and not finished */
  alive = 0;
  /** the thread that moved last */
  current: SimThread | null = null;
  readonly waiters: Record<CvName, SimThread[]> = { cv: [], cv_take: [], gcv: [] };
  /** the options of the current thread choice point (reused: no allocation per step) */
  readonly candidates: SimThread[] = [];
  /** what strategies see at a choice point: one object, rewritten in place */
  readonly ctx: MutableChoiceContext = {
    options: [],
    runnable: 0,
    current: -1,
    currentCanMove: false,
    mxOwner: -1,
    gmxOwner: -1,
    step: 0,
  };
  /** the strategy watches every step (PCT, exhaustive search) */
  readonly observes: boolean;
  readonly trace: Trace | null;

  constructor(
    readonly strategy: Strategy,
    readonly limits: RunLimits,
    trace: Trace | null,
  ) {
    this.spuriousLeft = limits.spuriousWakeups;
    this.trace = trace;
    this.observes = typeof strategy.onStep === 'function' || typeof strategy.onSpurious === 'function';
  }

  ownerOf(m: MutexName): number {
    return m === 'mx' ? this.mxOwner : this.gmxOwner;
  }

  setOwner(m: MutexName, tid: number): void {
    if (m === 'mx') this.mxOwner = tid;
    else this.gmxOwner = tid;
  }

  record(th: SimThread, event: TraceEvent): void {
    this.trace?.add(this.steps, this.now, th.tid, event);
  }

  describeThreads(): string {
    return this.threads
      .filter((t) => !t.isDone())
      .map((t) => t.describe())
      .join('; ');
  }
}
