/**
 * The deterministic discrete-event runtime: runs generator threads one op at a time.
 *
 * One step = the scheduler picks a thread whose pending op can execute, the op executes,
 * and the thread runs on to its next op (trace marks are recorded on the way and are
 * never choice points). Sync semantics: one mutex `mx`; Mesa condition variables (the
 * schedule chooses which waiter a `signal` wakes; a spurious wakeup is a scheduler
 * option while the budget lasts); `join` waits for a finished thread. Every other op is
 * handed to the world, which charges virtual time for it.
 *
 * Nothing here is random: the strategy makes every choice, so the same strategy path
 * gives the same run. Limits (steps, threads) end a run with a violation that says so.
 */
import type { CvName, Op, Thread } from '../../src/ops.js';
import type { ChoiceContext, Strategy } from './strategy.js';
import { SimThread, ThreadState } from './thread.js';
import { Trace } from './trace.js';
import { Violation } from './violation.js';

/** What the runtime needs from the simulated world. */
export interface SimWorld {
  /** executes a backend or engine op for thread tid and returns its result */
  exec(op: Op, tid: number): unknown;
  /** virtual microseconds the op takes */
  duration(op: Op): number;
  /** how a trace prints the op and its result */
  describe(op: Op, result: unknown): string;
}

/** What a checker may see of the run (the simulator's, or a real run's). */
export interface RunView {
  readonly threads: readonly SimThread[];
  readonly spuriousLeft: number;
  readonly limits: RunLimits;
}

/** What a checker sees of the thread that reached a mark. */
export interface ThreadView {
  readonly tid: number;
  readonly name: string;
}

/** Read-only observers; they throw a Violation to end the run. */
export interface Checker {
  /** a call/ret/mark op was reached (the thread holds whatever locks it holds) */
  onMark?(rt: RunView, th: ThreadView, op: Op): void;
  /** mx was just released: the protocol's state must be consistent */
  onQuiescent?(rt: RunView): void;
  /** every thread finished */
  atEnd?(rt: RunView): void;
  /** a digest of the mx-guarded state: a thread that does not hold mx must not change it */
  guardedDigest?(): number;
}

export interface RunLimits {
  maxSteps: number;
  maxThreads: number;
  /** spurious wakeups the scheduler may inject in one run */
  spuriousWakeups: number;
  /** steps allowed after shutdown starts before the run counts as hung */
  stepsAfterShutdown: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 200_000,
  maxThreads: 16,
  spuriousWakeups: 2,
  stepsAfterShutdown: 100_000,
};

export interface RunOutcome {
  readonly ok: boolean;
  readonly violation: Violation | null;
  readonly steps: number;
  readonly decisions: number;
  readonly virtualUs: number;
}

export class Runtime implements RunView {
  readonly threads: SimThread[] = [];
  mxOwner = -1;
  steps = 0;
  now = 0;
  spuriousLeft: number;
  /** step at which shutdown began (a `call shutdown` mark), -1 before */
  shutdownStep = -1;
  readonly trace: Trace | null;
  private readonly waiters: Record<CvName, SimThread[]> = { cv: [], cv_take: [] };
  private readonly candidates: SimThread[] = [];
  private current: SimThread | null = null;
  private decisions = 0;
  /** what strategies see at a choice point: one object, rewritten in place */
  private readonly ctx: MutableChoiceContext = {
    options: [],
    runnable: 0,
    current: -1,
    currentCanMove: false,
    mxOwner: -1,
    step: 0,
  };
  /** the strategy watches every step (PCT, exhaustive search) */
  private readonly observes: boolean;
  private readonly digesters: Checker[];

  constructor(
    private readonly world: SimWorld,
    private readonly strategy: Strategy,
    private readonly checkers: readonly Checker[],
    readonly limits: RunLimits = DEFAULT_LIMITS,
    traced = false,
  ) {
    this.spuriousLeft = limits.spuriousWakeups;
    this.trace = traced ? new Trace() : null;
    this.observes = typeof strategy.onStep === 'function' || typeof strategy.onSpurious === 'function';
    this.digesters = checkers.filter((c) => c.guardedDigest !== undefined);
  }

  run(main: Thread, name = 'main'): RunOutcome {
    let violation: Violation | null = null;
    try {
      this.spawn(name, main);
      this.loop();
      for (const c of this.checkers) c.atEnd?.(this);
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      violation = e;
      this.trace?.add(this.steps, this.now, this.current?.tid ?? 0, `!! ${e.message}`);
    }
    return {
      ok: violation === null,
      violation,
      steps: this.steps,
      decisions: this.decisions,
      virtualUs: this.now,
    };
  }

  private loop(): void {
    const limits = this.limits;
    for (;;) {
      const th = this.choose();
      if (th === null) return;
      if (this.observes) this.strategy.onStep?.(th, this.mxOwner === th.tid, this.steps);
      this.step(th);
      if (++this.steps > limits.maxSteps) {
        throw new Violation('LIVE-STEPS', `run exceeded ${limits.maxSteps} steps (livelock?): ${this.describeThreads()}`);
      }
      if (this.shutdownStep >= 0 && this.steps - this.shutdownStep > limits.stepsAfterShutdown) {
        throw new Violation(
          'LIVE-SHUTDOWN',
          `threads still running ${limits.stepsAfterShutdown} steps after shutdown began: ${this.describeThreads()}`,
        );
      }
    }
  }

  /** Picks the next thread to move, or null when every thread finished. */
  private choose(): SimThread | null {
    for (;;) {
      const cand = this.candidates;
      cand.length = 0;
      const cur = this.current;
      const curCanMove = cur !== null && this.canMove(cur);
      if (curCanMove) cand.push(cur);
      let alive = 0;
      for (const th of this.threads) {
        if (th.state !== ThreadState.Done) alive++;
        if (th !== cur && this.canMove(th)) cand.push(th);
      }
      const runnable = cand.length;
      if (this.spuriousLeft > 0) {
        for (const th of this.threads) if (th.state === ThreadState.CvWait) cand.push(th);
      }
      if (cand.length === 0) {
        if (alive === 0) return null;
        const id = this.shutdownStep >= 0 ? 'LIVE-SHUTDOWN' : 'LIVE-DEADLOCK';
        throw new Violation(id, `deadlock: no thread can move: ${this.describeThreads()}`);
      }
      let i = 0;
      if (cand.length > 1) {
        const ctx = this.ctx;
        ctx.options = cand;
        ctx.runnable = runnable;
        ctx.current = cur?.tid ?? -1;
        ctx.currentCanMove = curCanMove;
        ctx.mxOwner = this.mxOwner;
        ctx.step = this.steps;
        i = this.strategy.pick(cand.length, 'thread', ctx);
        this.decisions++;
      }
      const th = cand[i];
      if (th === undefined) throw new Error(`strategy picked option ${i} of ${cand.length}`);
      if (i < runnable) {
        this.current = th;
        return th;
      }
      // a spurious wakeup: the waiter leaves the cv and must re-take mx
      this.spuriousLeft--;
      if (this.observes) this.strategy.onSpurious?.(th);
      this.wake(th, 'spurious');
    }
  }

  private canMove(th: SimThread): boolean {
    if (th.state !== ThreadState.Ready) return false;
    if (th.reacquire) return this.mxOwner < 0;
    const op = th.pending;
    if (op === null) return true;
    if (op.k === 'lock') return this.mxOwner < 0;
    if (op.k === 'join') return this.threads[op.tid]?.state === ThreadState.Done;
    return true;
  }

  /** Executes th's pending op, then runs th to its next op. */
  private step(th: SimThread): void {
    if (th.reacquire) {
      th.reacquire = false;
      this.mxOwner = th.tid;
      this.record(th, 'wakes, re-takes mx');
      this.advance(th, undefined);
      return;
    }
    const op = th.pending;
    if (op === null) {
      this.advance(th, undefined);
      return;
    }
    let result: unknown;
    switch (op.k) {
      case 'lock':
        if (this.mxOwner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} locks mx it already holds`);
        this.mxOwner = th.tid;
        this.record(th, 'lock');
        break;
      case 'unlock':
        if (this.mxOwner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} unlocks mx it does not hold`);
        this.mxOwner = -1;
        this.record(th, 'unlock');
        for (const c of this.checkers) c.onQuiescent?.(this);
        break;
      case 'wait':
        if (this.mxOwner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} waits on ${op.cv} without holding mx`);
        this.mxOwner = -1;
        th.state = ThreadState.CvWait;
        th.waitingOn = op.cv;
        th.pending = null;
        this.waiters[op.cv].push(th);
        this.record(th, `wait ${op.cv}`);
        for (const c of this.checkers) c.onQuiescent?.(this);
        return; // resumes only when woken
      case 'signal': {
        if (this.mxOwner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} signals ${op.cv} without holding mx`);
        const q = this.waiters[op.cv];
        this.record(th, `signal ${op.cv}${q.length === 0 ? ' (no waiter)' : ''}`);
        if (q.length > 0) {
          let i = 0;
          if (q.length > 1) {
            const ctx = this.ctx;
            ctx.options = q;
            ctx.runnable = q.length;
            ctx.current = th.tid;
            ctx.currentCanMove = false;
            ctx.mxOwner = this.mxOwner;
            ctx.step = this.steps;
            i = this.strategy.pick(q.length, 'wake', ctx);
            this.decisions++;
          }
          const w = q[i];
          if (w !== undefined) this.wake(w, `signalled by ${th.name}`);
        }
        break;
      }
      case 'broadcast': {
        if (this.mxOwner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} broadcasts ${op.cv} without holding mx`);
        const q = this.waiters[op.cv];
        this.record(th, `broadcast ${op.cv} (${q.length} waiting)`);
        while (q.length > 0) {
          const w = q[0];
          if (w === undefined) break;
          this.wake(w, `broadcast by ${th.name}`);
        }
        break;
      }
      case 'spawn':
        result = this.spawn(op.name, op.body);
        this.record(th, `spawn ${op.name} -> thread ${String(result)}`);
        break;
      case 'join':
        this.record(th, `join ${this.threads[op.tid]?.name ?? op.tid}`);
        break;
      default:
        result = this.world.exec(op, th.tid);
        this.now += this.world.duration(op);
        if (this.trace !== null) this.record(th, this.world.describe(op, result));
    }
    // with one thread there is nobody to race with (init sets budgets before the uploader)
    if (this.digesters.length > 0 && this.mxOwner !== th.tid && this.threads.length > 1) {
      // the code up to th's next op runs without mx: it may not touch guarded state
      const before = this.digest();
      this.advance(th, result);
      const after = this.digest();
      if (before !== after) {
        throw new Violation('SYNC-DISCIPLINE', `${th.name} changed mx-guarded state without holding mx`);
      }
      return;
    }
    this.advance(th, result);
  }

  private digest(): number {
    let h = 0;
    for (const c of this.digesters) h = h * 31 + (c.guardedDigest?.() ?? 0);
    return h;
  }

  /** Runs th's generator with `value` until its next scheduling op (or its end). */
  private advance(th: SimThread, value: unknown): void {
    let res = this.resume(th, value);
    for (;;) {
      if (res.done === true) {
        th.state = ThreadState.Done;
        th.pending = null;
        if (this.mxOwner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} ended holding mx`);
        this.record(th, 'ends');
        return;
      }
      const op = res.value;
      if (op.k === 'call' || op.k === 'ret' || op.k === 'mark') {
        this.onMark(th, op);
        res = this.resume(th, undefined);
        continue;
      }
      th.pending = op;
      return;
    }
  }

  /**
   * Runs thread code. An exception thrown there (a failed assertion, a null dereference)
   * is a crash of the engine: a result with a trace and a replay, not a crash of tierlab.
   */
  private resume(th: SimThread, value: unknown): IteratorResult<Op, void> {
    try {
      return th.gen.next(value);
    } catch (e) {
      if (e instanceof Violation) throw e;
      throw new Violation('SAFE-NO-CRASH', `${th.name} threw: ${(e as Error).message}`);
    }
  }

  private onMark(th: SimThread, op: Op): void {
    if (op.k === 'call') {
      th.api.push(op.fn);
      if (op.fn === 'shutdown' && this.shutdownStep < 0) this.shutdownStep = this.steps;
      this.record(th, `> ${op.fn}${op.arg !== undefined ? ' ' + op.arg : ''}`);
    } else if (op.k === 'ret') {
      th.api.pop();
      this.record(th, `< ${op.fn}${op.value !== undefined ? ' = ' + op.value : ''}`);
    } else if (op.k === 'mark') {
      this.record(th, `# ${op.what}${op.detail !== undefined ? ' ' + op.detail : ''}`);
    }
    for (const c of this.checkers) c.onMark?.(this, th, op);
  }

  private wake(w: SimThread, why: string): void {
    const cv = w.waitingOn;
    if (cv !== null) {
      const q = this.waiters[cv];
      const at = q.indexOf(w);
      if (at >= 0) q.splice(at, 1);
    }
    w.state = ThreadState.Ready;
    w.waitingOn = null;
    w.reacquire = true;
    this.record(w, `woken (${why})`);
  }

  private spawn(name: string, body: Thread): number {
    if (this.threads.length >= this.limits.maxThreads) {
      throw new Violation('LIMIT-THREADS', `more than ${this.limits.maxThreads} threads (spawning ${name})`);
    }
    const tid = this.threads.length;
    const th = new SimThread(tid, name, body());
    this.threads.push(th);
    this.trace?.nameThread(tid, name);
    return tid;
  }

  private record(th: SimThread, text: string): void {
    this.trace?.add(this.steps, this.now, th.tid, text);
  }

  describeThreads(): string {
    return this.threads
      .filter((t) => t.state !== ThreadState.Done)
      .map((t) => t.describe())
      .join('; ');
  }

  /** tid of the thread whose op is executing now */
  get currentTid(): number {
    return this.current?.tid ?? -1;
  }
}

type MutableChoiceContext = { -readonly [K in keyof ChoiceContext]: ChoiceContext[K] };
