/**
 * Runs the tier's generator threads for real: each thread is an async task; sync ops go
 * to RealMutex/RealCondVar, every other op to the real world (which may answer with a
 * promise: a native call on a worker thread). Every op is recorded with a timestamp, and
 * the model's checkers watch the run as they watch a simulated one (same property ids).
 *
 * A violation, or an unexpected error in any thread, ends the run: the first one is
 * kept and reported; nothing is swallowed.
 */
import type { CvName, Op, Thread } from '../../ops.js';
import type { Checker, RunView } from '../../../model/rt/runtime.js';
import { DEFAULT_LIMITS } from '../../../model/rt/runtime.js';
import { Violation } from '../../../model/rt/violation.js';
import { RealCondVar, RealMutex } from './real_sync.js';

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

class Aborted extends Error {}

export async function runReal(
  main: Thread,
  world: RealWorldApi,
  checkers: readonly Checker[],
  opts: { traced?: boolean; stallSeconds?: number } = {},
): Promise<RealOutcome> {
  const traced = opts.traced ?? true;
  const stallMs = (opts.stallSeconds ?? 20) * 1000;
  const mx = new RealMutex();
  const cvs: Record<CvName, RealCondVar> = { cv: new RealCondVar('cv'), cv_take: new RealCondVar('cv_take') };
  const events: RealEvent[] = [];
  const names: string[] = [];
  const tasks: Promise<void>[] = [];
  const view: RunView = { threads: [], spuriousLeft: 0, limits: DEFAULT_LIMITS };
  const started = performance.now();
  let failure: Error | null = null;
  let lastProgress = performance.now();
  /** what each thread is blocked on, for a stall report */
  const doing: string[] = [];

  const note = (tid: number, text: string): void => {
    lastProgress = performance.now();
    if (traced) events.push({ t: (lastProgress - started) * 1000, tid, text });
  };

  function spawn(name: string, body: Thread): number {
    const tid = names.length;
    names.push(name);
    tasks[tid] = drive(tid, body).catch((e: unknown) => {
      if (failure === null) failure = e instanceof Error ? e : new Error(String(e));
    });
    return tid;
  }

  async function drive(tid: number, body: Thread): Promise<void> {
    const gen = body();
    let value: unknown = undefined;
    for (;;) {
      if (failure !== null) throw new Aborted('another thread failed');
      const r = gen.next(value);
      if (r.done === true) {
        doing[tid] = 'finished';
        if (mx.owner === tid) throw new Violation('SYNC-DISCIPLINE', `${names[tid]} ended holding mx`);
        note(tid, 'ends');
        return;
      }
      const op = r.value;
      value = undefined;
      switch (op.k) {
        case 'call':
        case 'ret':
        case 'mark':
          note(tid, op.k === 'mark' ? `# ${op.what} ${op.detail ?? ''}` : `${op.k === 'call' ? '>' : '<'} ${op.fn} ${op.k === 'ret' ? (op.value ?? '') : (op.arg ?? '')}`);
          for (const c of checkers) c.onMark?.(view, { tid, name: names[tid] ?? '' }, op);
          break;
        case 'lock':
          doing[tid] = 'waits for mx';
          await mx.lock(tid);
          note(tid, 'lock');
          break;
        case 'unlock':
          mx.unlock(tid);
          note(tid, 'unlock');
          for (const c of checkers) c.onQuiescent?.(view);
          break;
        case 'wait':
          note(tid, `wait ${op.cv}`);
          doing[tid] = `waits on ${op.cv}`;
          await cvs[op.cv].wait(mx, tid);
          note(tid, `woken on ${op.cv}, re-took mx`);
          break;
        case 'signal':
          if (mx.owner !== tid) throw new Violation('SYNC-DISCIPLINE', `${names[tid]} signals ${op.cv} without holding mx`);
          note(tid, `signal ${op.cv}`);
          cvs[op.cv].signal();
          break;
        case 'broadcast':
          if (mx.owner !== tid) throw new Violation('SYNC-DISCIPLINE', `${names[tid]} broadcasts ${op.cv} without holding mx`);
          note(tid, `broadcast ${op.cv}`);
          cvs[op.cv].broadcast();
          break;
        case 'spawn':
          value = spawn(op.name, op.body);
          note(tid, `spawn ${op.name}`);
          break;
        case 'join':
          doing[tid] = `joins ${names[op.tid] ?? op.tid}`;
          await tasks[op.tid];
          note(tid, `join ${names[op.tid] ?? op.tid}`);
          break;
        default: {
          doing[tid] = `in ${op.k}`;
          const res = world.exec(op, tid);
          value = res instanceof Promise ? await res : res;
          if (traced) note(tid, world.describe(op, value));
        }
      }
    }
  }

  spawn('main', main);
  // a real deadlock leaves promises that never settle, and Node would then exit quietly:
  // a watchdog turns a stall into a LIVE-DEADLOCK report naming every thread
  let stalled: () => void = () => undefined;
  const stall = new Promise<void>((resolve) => (stalled = resolve));
  const watchdog = setInterval(() => {
    if (performance.now() - lastProgress < stallMs) return;
    const who = names.map((n, i) => `${n}: ${doing[i] ?? 'running'}`).filter((d) => !d.endsWith('finished'));
    failure ??= new Violation('LIVE-DEADLOCK', `no progress for ${stallMs / 1000} s: ${who.join('; ')}`);
    stalled();
  }, 250);
  const all = (async () => {
    // threads spawn threads: wait until no task is left running
    let seen = 0;
    while (seen < tasks.length) {
      const upTo = tasks.length;
      await Promise.all(tasks.slice(seen, upTo));
      seen = upTo;
    }
  })();
  await Promise.race([all, stall]);
  clearInterval(watchdog);
  if (failure === null) {
    try {
      for (const c of checkers) c.atEnd?.(view);
    } catch (e) {
      failure = e as Error;
    }
  }
  const f = failure as Error | null;
  return {
    ok: f === null,
    violation: f instanceof Violation ? f : null,
    error: f !== null && !(f instanceof Violation) ? f : null,
    events,
    threadNames: names,
    seconds: (performance.now() - started) / 1000,
  };
}
