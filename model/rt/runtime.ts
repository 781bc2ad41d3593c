/**
 * The deterministic discrete-event runtime: runs generator threads one op at a time.
 *
 * One step = the scheduler (scheduler.ts) picks a thread whose pending op can execute,
 * the op executes (sync ops by sync.ts, everything else by the world, which charges
 * virtual time for it), and the thread runs on to its next op. Trace marks are recorded
 * on the way and are never choice points; the checkers see them, every release of mx,
 * and the end of the run.
 *
 * Nothing here is random: the strategy makes every choice, so the same strategy path
 * gives the same run. Limits (steps, threads) end a run with a violation that says so.
 */
import type { CvName, MarkOp, Op, Thread } from '../../src/ops.js';
import type { Checker } from '../../src/check/checker.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/check/limits.js';
import { guardedStateChanged, mustNotEndHolding } from '../../src/check/sync_discipline.js';
import { Violation } from '../../src/check/violation.js';
import { RunState } from './run_state.js';
import { chooseThread } from './scheduler.js';
import type { Strategy } from './strategy.js';
import { broadcast, lock, reacquire, signal, unlock, wait } from './sync.js';
import { SimThread, ThreadState } from './thread.js';
import { Trace } from './trace.js';
import type { WorldOpEvent } from './trace_event.js';
import type { SimWorld } from './world.js';

export interface RunOutcome {
  readonly ok: boolean;
  readonly violation: Violation | null;
  readonly steps: number;
  readonly decisions: number;
  readonly virtualUs: number;
}

export class Runtime extends RunState {
  private readonly digesters: Checker[];
  private readonly observers: Checker[];
  private readonly guards: Checker[];
  /** the thread whose code runs now without mx while others are alive (null: none) */
  private unguardedThread: SimThread | null = null;

  constructor(
    private readonly world: SimWorld,
    strategy: Strategy,
    private readonly checkers: readonly Checker[],
    limits: RunLimits = DEFAULT_LIMITS,
    traced = false,
  ) {
    super(strategy, limits, traced ? new Trace((op, result) => world.describe(op, result)) : null);
    this.digesters = checkers.filter((c) => c.guardedDigest !== undefined);
    this.observers = checkers.filter((c) => c.onOp !== undefined);
    this.guards = checkers.filter((c) => c.unguarded !== undefined);
  }

  run(main: Thread, name = 'main'): RunOutcome {
    return this.carryOn(() => this.spawn(name, main));
  }

  /**
   * Runs on from the state the runtime is in now: a saved state written back
   * (model/explore/state/restore/snapshot.ts), which may have ended the run before.
   */
  runOn(): RunOutcome {
    return this.carryOn(null);
  }

  private carryOn(start: (() => void) | null): RunOutcome {
    let violation: Violation | null = null;
    try {
      start?.();
      this.loop();
      for (const c of this.checkers) c.atEnd?.(this);
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      violation = e;
      this.trace?.add(this.steps, this.now, this.current?.tid ?? 0, {
        k: 'violation',
        property: e.property,
        detail: e.detail,
      });
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
      const th = chooseThread(this);
      if (th === null) return;
      if (this.observes) this.strategy.onStep?.(th, this.mxOwner === th.tid, this.steps);
      this.step(th);
      if (++this.steps > limits.maxSteps) {
        throw new Violation(
          'LIVE-STEPS',
          `run exceeded ${limits.maxSteps} steps (livelock?): ${this.describeThreads()}`,
        );
      }
      if (this.shutdownStep >= 0 && this.steps - this.shutdownStep > limits.stepsAfterShutdown) {
        throw new Violation(
          'LIVE-SHUTDOWN',
          `threads still running ${limits.stepsAfterShutdown} steps after shutdown began: ${this.describeThreads()}`,
        );
      }
    }
  }

  /** Executes th's pending op, then runs th to its next op. */
  private step(th: SimThread): void {
    if (th.reacquire) {
      reacquire(this, th);
      this.advance(th, undefined);
      return;
    }
    const op = th.pending;
    if (op === null) {
      this.advanceChecked(th, undefined);
      return;
    }
    let result: unknown;
    switch (op.k) {
      case 'lock':
        lock(this, th);
        break;
      case 'unlock':
        unlock(this, th);
        this.quiescent(th, null);
        break;
      case 'wait':
        wait(this, th, op.cv);
        this.quiescent(th, op.cv);
        return; // resumes only when woken
      case 'signal':
        signal(this, th, op.cv);
        break;
      case 'broadcast':
        broadcast(this, th, op.cv);
        break;
      case 'spawn': {
        const tid = this.world.spawnFails?.(op.name) === true ? -1 : this.spawn(op.name, op.body);
        this.record(th, { k: 'spawn', name: op.name, tid });
        result = tid;
        break;
      }
      case 'join':
        this.record(th, { k: 'join', tid: op.tid });
        break;
      default:
        result = this.world.exec(op, th.tid);
        this.now += this.world.duration(op);
        // the world answers by the OpResults table (src/ops.ts `perform`): the result is of op's kind
        if (this.trace !== null) this.record(th, { k: 'op', op, result } as WorldOpEvent);
    }
    if (this.observers.length > 0 && op.k !== 'lock' && op.k !== 'unlock')
      for (const c of this.observers) c.onOp?.(this, th, op, result);
    this.advanceChecked(th, result);
  }

  /** advance, where th runs without mx and others may race with it: it may not touch guarded state */
  private advanceChecked(th: SimThread, value: unknown): void {
    // with one thread alive there is nobody to race with (init runs before the uploader)
    if (this.mxOwner === th.tid || this.alive <= 1 || (this.digesters.length === 0 && this.guards.length === 0)) {
      this.advance(th, value);
      return;
    }
    const before = this.digest();
    this.unguardedThread = th;
    for (const g of this.guards) g.unguarded?.(th);
    try {
      this.advance(th, value);
    } finally {
      this.unguardedThread = null;
      for (const g of this.guards) g.unguarded?.(null);
    }
    if (before !== this.digest()) throw guardedStateChanged(th);
  }

  private quiescent(th: SimThread, cv: CvName | null): void {
    for (const c of this.checkers) c.onQuiescent?.(this, th, cv);
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
        this.alive--;
        mustNotEndHolding(this.mxOwner, th);
        this.record(th, { k: 'end' });
        return;
      }
      const op: Op = res.value;
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

  private onMark(th: SimThread, op: MarkOp): void {
    if (op.k === 'call') {
      th.api.push(op.call.fn);
      if (op.call.fn === 'shutdown' && this.shutdownStep < 0) this.shutdownStep = this.steps;
      this.record(th, { k: 'call', call: op.call });
    } else if (op.k === 'ret') {
      th.api.pop();
      this.record(th, { k: 'ret', ret: op.ret });
    } else {
      this.record(th, { k: 'mark', what: op.what, detail: op.detail });
    }
    // the checkers read the state as observers, not as th's code
    if (this.unguardedThread !== null) for (const g of this.guards) g.unguarded?.(null);
    for (const c of this.checkers) c.onMark?.(this, th, op);
    if (this.unguardedThread !== null) for (const g of this.guards) g.unguarded?.(this.unguardedThread);
  }

  private spawn(name: string, body: Thread): number {
    if (this.threads.length >= this.limits.maxThreads) {
      throw new Violation('LIMIT-THREADS', `more than ${this.limits.maxThreads} threads (spawning ${name})`);
    }
    const tid = this.threads.length;
    const th = new SimThread(tid, name, body());
    this.threads.push(th);
    this.alive++;
    this.trace?.nameThread(tid, name);
    return tid;
  }

  /** tid of the thread whose op is executing now */
  get currentTid(): number {
    return this.current?.tid ?? -1;
  }
}
