/**
 * Runs the tier's generator threads for real: each thread is an async task; sync ops go
 * to RealMutex/RealCondVar, every other op to the real world (which may answer with a
 * promise: a native call on a worker thread). Every op is recorded with a timestamp, and
 * the model's checkers watch the run as they watch a simulated one (same property ids).
 *
 * A violation, or an unexpected error in any thread, ends the run: the first one is
 * kept and reported; nothing is swallowed.
 */
import type { CvName, MarkOp, Op, Thread } from '../../ops.js';
import { describeCall, describeReturn } from '../../ops_text.js';
import { ThreadState, type Checker, type RunView } from '../../check/checker.js';
import { DEFAULT_LIMITS } from '../../check/limits.js';
import { mustHoldMx, mustNotEndHolding } from '../../check/sync_discipline.js';
import { Violation } from '../../check/violation.js';
import { RealCondVar, RealMutex, RealThread } from './real_sync.js';

export interface RealWorldApi {
  exec(op: Op, tid: number): unknown;
  describe(op: Op, result: unknown): string;
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
  private readonly cvs: Record<CvName, RealCondVar> = {
    cv: new RealCondVar('cv'),
    cv_take: new RealCondVar('cv_take'),
  };
  private readonly events: RealEvent[] = [];
  private readonly tasks: Promise<void>[] = [];
  private readonly started = performance.now();
  private lastProgress = performance.now();
  private failure: Error | null = null;
  private readonly traced: boolean;
  private readonly stallMs: number;

  constructor(
    private readonly world: RealWorldApi,
    private readonly checkers: readonly Checker[],
    opts: RealRunOptions,
  ) {
    this.traced = opts.traced ?? true;
    this.stallMs = (opts.stallSeconds ?? 20) * 1000;
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
    this.lastProgress = performance.now();
    if (this.traced) this.events.push({ t: (this.lastProgress - this.started) * 1000, tid: th.tid, text });
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
    for (;;) {
      if (this.failure !== null) throw new Aborted('another thread failed');
      const r = gen.next(value);
      if (r.done === true) {
        th.state = ThreadState.Done;
        th.doing = 'finished';
        mustNotEndHolding(this.mx.owner, th);
        this.note(th, 'ends');
        return;
      }
      value = await this.exec(th, r.value);
    }
  }

  private async exec(th: RealThread, op: Op): Promise<unknown> {
    switch (op.k) {
      case 'call':
      case 'ret':
      case 'mark':
        this.mark(th, op);
        return undefined;
      case 'lock':
        th.doing = 'waits for mx';
        await this.mx.lock(th);
        this.note(th, 'lock');
        return undefined;
      case 'unlock':
        this.mx.unlock(th);
        this.note(th, 'unlock');
        for (const c of this.checkers) c.onQuiescent?.(this, th, null);
        return undefined;
      case 'wait': {
        this.note(th, `wait ${op.cv}`);
        th.doing = `waits on ${op.cv}`;
        const woken = this.cvs[op.cv].sleep(this.mx, th);
        for (const c of this.checkers) c.onQuiescent?.(this, th, op.cv);
        await woken;
        await this.mx.lock(th);
        this.note(th, `woken on ${op.cv}, re-took mx`);
        return undefined;
      }
      default: {
        const r = this.execOther(th, op);
        return this.observed(th, op, r instanceof Promise ? ((await r) as unknown) : r);
      }
    }
  }

  private observed(th: RealThread, op: Op, result: unknown): unknown {
    for (const c of this.checkers) c.onOp?.(this, th, op, result);
    return result;
  }

  /** signal, broadcast, spawn, join, and every op the world answers (a promise: a native call). */
  private execOther(th: RealThread, op: Op): unknown {
    switch (op.k) {
      case 'signal':
        mustHoldMx(this.mx.owner, th, `signals ${op.cv}`);
        this.note(th, `signal ${op.cv}`);
        this.cvs[op.cv].signal();
        return undefined;
      case 'broadcast':
        mustHoldMx(this.mx.owner, th, `broadcasts ${op.cv}`);
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
        th.doing = `in ${op.k}`;
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
    for (const c of this.checkers) c.onMark?.(this, th, op);
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
    const timer = setInterval(() => {
      if (performance.now() - this.lastProgress < this.stallMs) return;
      const who = this.threads.filter((t) => t.state !== ThreadState.Done).map((t) => `${t.name}: ${t.doing}`);
      this.fail(new Violation('LIVE-DEADLOCK', `no progress for ${this.stallMs / 1000} s: ${who.join('; ')}`));
      stalled();
    }, 250);
    return { promise, stop: () => clearInterval(timer) };
  }
}
