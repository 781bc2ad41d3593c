/**
 * Runs the tier's generator threads for real: each thread is an async task; sync ops go
 * to RealMutex/RealCondVar, every other op to the real world (which may answer with a
 * promise: a native call on a worker thread). Every op is recorded with a timestamp, and
 * the model's checkers watch the run as they watch a simulated one (same property ids).
 *
 * A violation, or an unexpected error in any thread, ends the run: the first one is
 * kept and reported; nothing is swallowed.
 */
import { mutexOfCv, mutexOfOp, type CvName, type MarkOp, type MutexName, type Op, type Thread } from '../../ops.js';
import { describeCall, describeReturn } from '../../ops_text.js';
import { ThreadState, type Checker, type RunView } from '../../check/checker.js';
import { DEFAULT_LIMITS } from '../../check/limits.js';
import { mustHoldMx, mustNotEndHolding } from '../../check/sync_discipline.js';
import { Violation } from '../../check/violation.js';
import { RealCondVar, RealMutex, RealThread } from './real_sync.js';

export interface RealWorldApi {
  exec(op: Op, tid: number): unknown;
  describe(op: Op, result: unknown): string;
  /** MEM-SYNC: `who` does `what` on the tier's sync objects (absent: not judged) */
  syncUse?(who: string, what: string): void;
}

export interface RealEvent {
  /** microseconds since the run started */
  readonly t: number;
  readonly tid: number;
  readonly text: string;
}

export interface RealOutcome {
  readonly ok: boolean;
  readonly violation: Violation | null;
  readonly error: Error | null;
  readonly events: readonly RealEvent[];
  readonly threadNames: readonly string[];
  readonly seconds: number;
}

export interface RealRunOptions {
  readonly traced?: boolean;
  /** seconds without progress before the run counts as deadlocked */
  readonly stallSeconds?: number;
}

class Aborted extends Error {}

/** `<verb> <what>` for a thread's stall report, made once per pair: an op makes no string. */
const phrases = new Map<string, Map<string, string>>();
function phrase(verb: string, what: string): string {
  let of = phrases.get(verb);
  if (of === undefined) {
    of = new Map();
    phrases.set(verb, of);
  }
  let p = of.get(what);
  if (p === undefined) {
    p = `${verb} ${what}`;
    of.set(what, p);
  }
  return p;
}

/**
 * A thread whose ops all answer at once (a stats thread hammering the tier) would run on
 * microtasks alone and starve the native completions, which arrive as macrotasks: every
 * this many ops a thread lets the event loop turn, as an OS scheduler would preempt it.
 */
const FAIR_OPS = 64;

export function runReal(
  main: Thread,
  world: RealWorldApi,
  checkers: readonly Checker[],
  opts: RealRunOptions = {},
): Promise<RealOutcome> {
  return new RealRun(world, checkers, opts).run(main);
}

class RealRun implements RunView {
  readonly threads: RealThread[] = [];
  readonly spuriousLeft = 0;
  readonly limits = DEFAULT_LIMITS;
  private readonly mx = new RealMutex();
  /** the lifecycle gate's own mutex */
  private readonly gmx = new RealMutex('gmx');
  private readonly cvs: Record<CvName, RealCondVar> = {
    cv: new RealCondVar('cv'),
    cv_take: new RealCondVar('cv_take'),
    gcv: new RealCondVar('gcv'),
  };
  private readonly events: RealEvent[] = [];
  private readonly tasks: Promise<void>[] = [];
  private readonly started = performance.now();
  /** ops noted so far (the stall watchdog's measure of progress) */
  private progress = 0;
  private failure: Error | null = null;
  private readonly traced: boolean;
  private readonly stallMs: number;
  /** the checkers that watch each moment (a moment's loop skips those that do not) */
  private readonly onMarks: Checker[];
  private readonly onQuiescents: Checker[];
  private readonly onGateReleases: Checker[];
  private readonly onOps: Checker[];

  constructor(
    private readonly world: RealWorldApi,
    private readonly checkers: readonly Checker[],
    opts: RealRunOptions,
  ) {
    this.traced = opts.traced ?? true;
    this.stallMs = (opts.stallSeconds ?? 20) * 1000;
    this.onMarks = checkers.filter((c) => c.onMark !== undefined);
    this.onQuiescents = checkers.filter((c) => c.onQuiescent !== undefined);
    this.onGateReleases = checkers.filter((c) => c.onGateRelease !== undefined);
    this.onOps = checkers.filter((c) => c.onOp !== undefined);
  }

  async run(main: Thread): Promise<RealOutcome> {
    this.spawn('main', main);
    const stalled = this.watchStalls();
    await Promise.race([this.allTasks(), stalled.promise]);
    stalled.stop();
    if (this.failure === null) {
      try {
        for (const c of this.checkers) c.atEnd?.(this);
      } catch (e) {
        this.failure = e instanceof Error ? e : new Error(String(e));
      }
    }
    const f = this.failure;
    return {
      ok: f === null,
      violation: f instanceof Violation ? f : null,
      error: f !== null && !(f instanceof Violation) ? f : null,
      events: this.events,
      threadNames: this.threads.map((t) => t.name),
      seconds: (performance.now() - this.started) / 1000,
    };
  }

  private note(th: RealThread, text: string): void {
    // a count, not a clock read per op: the watchdog reads the clock when it looks
    this.progress++;
    if (this.traced) this.events.push({ t: (performance.now() - this.started) * 1000, tid: th.tid, text });
  }

  private fail(e: unknown): void {
    if (this.failure === null) this.failure = e instanceof Error ? e : new Error(String(e));
  }

  private spawn(name: string, body: Thread): number {
    const th = new RealThread(this.threads.length, name);
    this.threads.push(th);
    this.tasks[th.tid] = this.drive(th, body).catch((e: unknown) => this.fail(e));
    return th.tid;
  }

  private async drive(th: RealThread, body: Thread): Promise<void> {
    const gen = body();
    let value: unknown;
    let ops = 0;
    for (;;) {
      if (this.failure !== null) throw new Aborted('another thread failed');
      const r = gen.next(value);
      if (r.done === true) {
        th.state = ThreadState.Done;
        th.doing = 'finished';
        mustNotEndHolding(this.mx.owner, th);
        mustNotEndHolding(this.gmx.owner, th, 'gmx');
        this.note(th, 'ends');
        return;
      }
      const op = r.value;
      if (op.k === 'call' || op.k === 'ret' || op.k === 'mark') {
        // a mark is never a point where another thread may go first (runtime.ts records
        // them on the way in the simulator too): no turn of the event loop for it
        this.mark(th, op);
        value = undefined;
      } else {
        value = await this.exec(th, op);
      }
      if (++ops % FAIR_OPS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Executes an op: its result, or a promise of it where the op must wait (a lock, a cv
   * wait, a native call). Not an async function: an op that answers at once makes no
   * promise of its own. The caller still awaits its value: one turn of the microtask
   * queue an op, in which the other threads' ready continuations go first (the event
   * loop's tasks, the native completions, get theirs every FAIR_OPS ops or when a thread
   * waits). Not awaiting such a value saved a sixth of a checked fill on the CPU backend;
   * on an H200 its Vulkan staged fill with every checker gave 27 % of pinned where the
   * awaiting runtime gave 87 %, one fill each (one fill moves by up to 26 points between
   * runs of one build, scripts/gpu/RUNS.md), so the turn stays.
   */
  private exec(th: RealThread, op: Op): unknown {
    switch (op.k) {
      case 'call':
      case 'ret':
      case 'mark':
        this.mark(th, op);
        return undefined;
      case 'lock':
        return this.lock(th, mutexOfOp(op));
      case 'unlock': {
        const m = mutexOfOp(op);
        if (m === 'mx') this.world.syncUse?.(th.name, 'unlocks mx');
        this.mutex(m).unlock(th);
        this.note(th, m === 'mx' ? 'unlock' : 'unlock gmx');
        this.released(th, m, null);
        return undefined;
      }
      case 'wait':
        return this.wait(th, op.cv);
      default: {
        const r = this.execOther(th, op);
        if (r instanceof Promise) return r.then((value: unknown) => this.observed(th, op, value));
        return this.observed(th, op, r);
      }
    }
  }

  private lock(th: RealThread, m: MutexName): Promise<void> | undefined {
    th.doing = m === 'mx' ? 'waits for mx' : 'waits for gmx';
    if (m === 'mx') this.world.syncUse?.(th.name, 'locks mx');
    const taken = this.mutex(m).lock(th);
    if (taken === undefined) {
      this.note(th, m === 'mx' ? 'lock' : 'lock gmx');
      return undefined;
    }
    return taken.then(() => this.note(th, m === 'mx' ? 'lock' : 'lock gmx'));
  }

  private async wait(th: RealThread, cv: CvName): Promise<void> {
    const m = mutexOfCv(cv);
    if (m === 'mx') this.world.syncUse?.(th.name, phrase('waits on', cv));
    this.note(th, phrase('wait', cv));
    th.doing = phrase('waits on', cv);
    const woken = this.cvs[cv].sleep(this.mutex(m), th);
    this.released(th, m, cv);
    await woken;
    await this.mutex(m).lock(th);
    this.note(th, `woken on ${cv}, re-took ${m}`);
  }

  private mutex(m: MutexName): RealMutex {
    return m === 'mx' ? this.mx : this.gmx;
  }

  /** th released mx (checkers see the tier's state) or gmx (the gate's) */
  private released(th: RealThread, m: MutexName, cv: CvName | null): void {
    if (m === 'mx') for (const c of this.onQuiescents) c.onQuiescent?.(this, th, cv);
    else for (const c of this.onGateReleases) c.onGateRelease?.(this, th, cv !== null);
  }

  private observed(th: RealThread, op: Op, result: unknown): unknown {
    for (const c of this.onOps) c.onOp?.(this, th, op, result);
    return result;
  }

  /** signal, broadcast, spawn, join, and every op the world answers (a promise: a native call). */
  private execOther(th: RealThread, op: Op): unknown {
    switch (op.k) {
      case 'signal':
        mustHoldMx(this.mutex(mutexOfCv(op.cv)).owner, th, `signals ${op.cv}`, mutexOfCv(op.cv));
        this.note(th, `signal ${op.cv}`);
        this.cvs[op.cv].signal();
        return undefined;
      case 'broadcast':
        mustHoldMx(this.mutex(mutexOfCv(op.cv)).owner, th, `broadcasts ${op.cv}`, mutexOfCv(op.cv));
        this.note(th, `broadcast ${op.cv}`);
        this.cvs[op.cv].broadcast();
        return undefined;
      case 'spawn': {
        const tid = this.spawn(op.name, op.body);
        this.note(th, `spawn ${op.name}`);
        return tid;
      }
      case 'join': {
        const target = this.threads[op.tid];
        th.doing = `joins ${target?.name ?? op.tid}`;
        return (this.tasks[op.tid] ?? Promise.resolve()).then(() => this.note(th, `join ${target?.name ?? op.tid}`));
      }
      default: {
        th.doing = phrase('in', op.k);
        const res = this.world.exec(op, th.tid);
        if (!(res instanceof Promise)) return this.described(th, op, res);
        return res.then((value: unknown) => this.described(th, op, value));
      }
    }
  }

  private described(th: RealThread, op: Op, value: unknown): unknown {
    if (this.traced) this.note(th, this.world.describe(op, value));
    return value;
  }

  private mark(th: RealThread, op: MarkOp): void {
    if (this.traced) {
      this.note(
        th,
        op.k === 'mark'
          ? `# ${op.what} ${op.detail ?? ''}`
          : op.k === 'call'
            ? describeCall(op.call)
            : describeReturn(op.ret),
      );
    }
    for (const c of this.onMarks) c.onMark?.(this, th, op);
  }

  /** Threads spawn threads: resolves once no task is left running. */
  private async allTasks(): Promise<void> {
    let seen = 0;
    while (seen < this.tasks.length) {
      const upTo = this.tasks.length;
      await Promise.all(this.tasks.slice(seen, upTo));
      seen = upTo;
    }
  }

  /**
   * A real deadlock leaves promises that never settle, and Node would then exit quietly:
   * a watchdog turns a stall into a LIVE-DEADLOCK report naming every thread.
   */
  private watchStalls(): { promise: Promise<void>; stop: () => void } {
    let stalled: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => (stalled = resolve));
    let seen = this.progress;
    let lastProgress = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      if (this.progress !== seen) {
        seen = this.progress;
        lastProgress = now;
      }
      if (now - lastProgress < this.stallMs) return;
      const who = this.threads.filter((t) => t.state !== ThreadState.Done).map((t) => `${t.name}: ${t.doing}`);
      this.fail(new Violation('LIVE-DEADLOCK', `no progress for ${this.stallMs / 1000} s: ${who.join('; ')}`));
      stalled();
    }, 250);
    return { promise, stop: () => clearInterval(timer) };
  }
}
