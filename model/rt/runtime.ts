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
import { mutexOfCv, mutexOfOp, type CvName, type MarkOp, type Op, type Thread } from '../../src/ops.js';
import type { Checker, LocksHeld } from '../../src/check/checker.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/check/limits.js';
import { guardedStateChanged, mustNotEndHolding } from '../../src/check/sync_discipline.js';
import { destroyedWhileBusy } from '../../src/check/sync_objects.js';
import { Violation } from '../../src/check/violation.js';
import { RunState } from './run_state.js';
import { chooseThread } from './scheduler.js';
import type { Strategy } from './strategy.js';
import { broadcast, lock, reacquire, signal, unlock, wait } from './sync.js';
import { SimThread, ThreadState } from './thread.js';
import { Trace } from './trace.js';
import type { WorldOpEvent } from './trace_event.js';
import type { SimWorld } from './world.js';

/** What a thread running checked holds (never both): one object each, so a step makes none. */
const UNHELD: LocksHeld = { mx: false, gmx: false };
const HOLDS_MX: LocksHeld = { mx: true, gmx: false };
const HOLDS_GMX: LocksHeld = { mx: false, gmx: true };

/** What a thread does on a condition variable, as the sync ledger is told: made once, not per op. */
const WAITS_ON: Readonly<Record<CvName, string>> = {
  cv: 'waits on cv',
  cv_take: 'waits on cv_take',
  gcv: 'waits on gcv',
};
const SIGNALS: Readonly<Record<CvName, string>> = { cv: 'signals cv', cv_take: 'signals cv_take', gcv: 'signals gcv' };
const BROADCASTS: Readonly<Record<CvName, string>> = {
  cv: 'broadcasts cv',
  cv_take: 'broadcasts cv_take',
  gcv: 'broadcasts gcv',
};

export interface RunOutcome {
  readonly ok: boolean;
  readonly violation: Violation | null;
  readonly steps: number;
  readonly decisions: number;
  readonly virtualUs: number;
}

export class Runtime extends RunState {
  private readonly digesters: Checker[];
  private readonly gateDigesters: Checker[];
  private readonly observers: Checker[];
  private readonly guards: Checker[];
  /** the checkers that watch marks and releases (a moment's loop skips those that do not) */
  private readonly markers: Checker[];
  private readonly quiescents: Checker[];
  private readonly gateReleases: Checker[];
  /** no checker digests or guards state: steps without a mutex need no check */
  private readonly quiet: boolean;
  /** the thread whose code runs now without mx or gmx while others are alive (null: none) */
  private unguardedThread: SimThread | null = null;
  private unguardedHeld: LocksHeld = UNHELD;
  /**
   * The guarded digests as the last step checked without mx (without gmx) left them, or
   * null where a step since may have changed that state (a thread ran holding the mutex,
   * or alone): the next check then starts from it instead of digesting the state twice.
   * Nothing but thread code writes the tier's state, and every step that runs thread
   * code unchecked drops them.
   */
  private mxDigestSeen: number | null = null;
  private gateDigestSeen: number | null = null;

  constructor(
    private readonly world: SimWorld,
    strategy: Strategy,
    private readonly checkers: readonly Checker[],
    limits: RunLimits = DEFAULT_LIMITS,
    traced = false,
  ) {
    super(strategy, limits, traced ? new Trace((op, result) => world.describe(op, result)) : null);
    this.digesters = checkers.filter((c) => c.guardedDigest !== undefined);
    this.gateDigesters = checkers.filter((c) => c.gateDigest !== undefined);
    this.observers = checkers.filter((c) => c.onOp !== undefined);
    this.guards = checkers.filter((c) => c.unguarded !== undefined);
    this.markers = checkers.filter((c) => c.onMark !== undefined);
    this.quiescents = checkers.filter((c) => c.onQuiescent !== undefined);
    this.gateReleases = checkers.filter((c) => c.onGateRelease !== undefined);
    this.quiet = this.digesters.length === 0 && this.gateDigesters.length === 0 && this.guards.length === 0;
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
      if (this.observes) this.strategy.onStep?.(th, this.mxOwner === th.tid, this.steps, this.gmxOwner === th.tid);
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
      this.advanceUnchecked(th, undefined);
      return;
    }
    const op = th.pending;
    if (op === null) {
      this.advanceChecked(th, undefined);
      return;
    }
    let result: unknown;
    switch (op.k) {
      case 'lock': {
        const m = mutexOfOp(op);
        if (m === 'mx') this.world.syncUse?.(th.name, 'locks mx');
        lock(this, th, m);
        break;
      }
      case 'unlock': {
        const m = mutexOfOp(op);
        if (m === 'mx') this.world.syncUse?.(th.name, 'unlocks mx');
        unlock(this, th, m);
        this.released(th, m, null);
        break;
      }
      case 'wait':
        if (mutexOfCv(op.cv) === 'mx') this.world.syncUse?.(th.name, WAITS_ON[op.cv]);
        wait(this, th, op.cv);
        this.released(th, mutexOfCv(op.cv), op.cv);
        return; // resumes only when woken
      case 'signal':
        if (mutexOfCv(op.cv) === 'mx') this.world.syncUse?.(th.name, SIGNALS[op.cv]);
        signal(this, th, op.cv);
        break;
      case 'broadcast':
        if (mutexOfCv(op.cv) === 'mx') this.world.syncUse?.(th.name, BROADCASTS[op.cv]);
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
        if (op.k === 'syncDestroy') this.mustBeIdle(th);
        result = this.world.exec(op, th.tid);
        this.now += this.world.duration(op);
        // the world answers by the OpResults table (src/ops.ts `perform`): the result is of op's kind
        if (this.trace !== null) this.record(th, { k: 'op', op, result } as WorldOpEvent);
    }
    if (this.observers.length > 0 && op.k !== 'lock' && op.k !== 'unlock')
      for (const c of this.observers) c.onOp?.(this, th, op, result);
    this.advanceChecked(th, result);
  }

  /**
   * advance, where th runs without mx or without gmx and others may race with it: it may
   * not touch the state that mutex guards
   */
  private advanceChecked(th: SimThread, value: unknown): void {
    const mx = this.mxOwner === th.tid;
    const gmx = this.gmxOwner === th.tid;
    // with one thread alive there is nobody to race with (init runs before the uploader)
    if ((mx && gmx) || this.alive <= 1 || this.quiet) {
      this.advanceUnchecked(th, value);
      return;
    }
    const held = mx ? HOLDS_MX : gmx ? HOLDS_GMX : UNHELD;
    const before = mx ? 0 : (this.mxDigestSeen ?? this.digest(this.digesters, false));
    const gateBefore = gmx ? 0 : (this.gateDigestSeen ?? this.digest(this.gateDigesters, true));
    this.unguardedThread = th;
    this.unguardedHeld = held;
    for (const g of this.guards) g.unguarded?.(th, held);
    try {
      this.advance(th, value);
    } finally {
      this.unguardedThread = null;
      for (const g of this.guards) g.unguarded?.(null);
    }
    this.mxDigestSeen = null;
    this.gateDigestSeen = null;
    if (!mx) {
      const after = this.digest(this.digesters, false);
      if (before !== after) throw guardedStateChanged(th);
      this.mxDigestSeen = after;
    }
    if (!gmx) {
      const after = this.digest(this.gateDigesters, true);
      if (gateBefore !== after) throw guardedStateChanged(th, 'gmx');
      this.gateDigestSeen = after;
    }
  }

  /** advance, unchecked: th's code may change any state, so the digests seen are dropped */
  private advanceUnchecked(th: SimThread, value: unknown): void {
    this.mxDigestSeen = null;
    this.gateDigestSeen = null;
    this.advance(th, value);
  }

  /** th released mx (checkers see the tier's state) or gmx (they see the gate's) */
  private released(th: SimThread, m: 'mx' | 'gmx', cv: CvName | null): void {
    if (m === 'mx') for (const c of this.quiescents) c.onQuiescent?.(this, th, cv);
    else for (const c of this.gateReleases) c.onGateRelease?.(this, th, cv !== null);
  }

  /** MEM-SYNC: nobody may hold mx, wait on cv or cv_take, or wait to take mx when they are destroyed. */
  private mustBeIdle(th: SimThread): void {
    const busy: string[] = [];
    if (this.mxOwner >= 0) busy.push(`${this.threads[this.mxOwner]?.name ?? this.mxOwner} holds mx`);
    for (const t of this.threads) {
      if (t === th || t.isDone()) continue;
      if (t.waitingOn === 'cv' || t.waitingOn === 'cv_take') busy.push(`${t.name} waits on ${t.waitingOn}`);
      else if (t.reacquire && t.relock === 'mx') busy.push(`${t.name} is woken and re-takes mx`);
      else if (t.pending?.k === 'lock' && mutexOfOp(t.pending) === 'mx') busy.push(`${t.name} waits to lock mx`);
    }
    if (busy.length > 0) throw destroyedWhileBusy(`${th.name} destroys them: ${busy.join(', ')}`);
  }

  private digest(of: readonly Checker[], gate: boolean): number {
    let h = 0;
    for (const c of of) h = h * 31 + ((gate ? c.gateDigest?.() : c.guardedDigest?.()) ?? 0);
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
        mustNotEndHolding(this.gmxOwner, th, 'gmx');
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
    const traced = this.trace !== null;
    if (op.k === 'call') {
      th.api.push(op.call.fn);
      if (op.call.fn === 'shutdown' && this.shutdownStep < 0) this.shutdownStep = this.steps;
      if (traced) this.record(th, { k: 'call', call: op.call });
    } else if (op.k === 'ret') {
      th.api.pop();
      if (traced) this.record(th, { k: 'ret', ret: op.ret });
    } else if (traced) {
      this.record(th, { k: 'mark', what: op.what, detail: op.detail });
    }
    // the checkers read the state as observers, not as th's code
    if (this.unguardedThread !== null) for (const g of this.guards) g.unguarded?.(null);
    for (const c of this.markers) c.onMark?.(this, th, op);
    if (this.unguardedThread !== null) {
      for (const g of this.guards) g.unguarded?.(this.unguardedThread, this.unguardedHeld);
    }
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
