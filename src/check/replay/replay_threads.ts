/**
 * The threads of a replayed run, as checkers see threads (RunView): each managed thread of
 * the scheduler's trace with its name, whether it sleeps on one of the tier's condition
 * variables (cv, cv_take, and the gate's gcv) and whether it finished. `sync` also says
 * which release of a mutex a trace event is: of mx (the tables' quiescent point) or of
 * the gate's gmx (an unlock, a wait on gcv), and when a thread takes gmx back after a
 * wait on gcv.
 *
 * Invariant: a thread's state changes exactly at the trace's wait, signal, broadcast,
 * spurious wakeup, timeout and exit events, in the trace's order.
 */
import type { CvName } from '../../ops.js';
import { ThreadState, type RunView, type ThreadView } from '../checker.js';
import { DEFAULT_LIMITS, type RunLimits } from '../limits.js';
import type { SchedEvent } from './records.js';
import type { Role } from './schema.js';

export class ReplayThread implements ThreadView {
  state = ThreadState.Ready;
  waitingOn: CvName | null = null;
  /** the object it sleeps on (any kind), 0 when none */
  sleepsOn = 0;

  constructor(
    readonly tid: number,
    readonly name: string,
  ) {}
}

export class ReplayThreads implements RunView {
  readonly threads: ReplayThread[] = [];
  readonly spuriousLeft = 0;
  mxOwner = -1;

  constructor(
    private readonly names: ReadonlyMap<number, string>,
    readonly limits: RunLimits = DEFAULT_LIMITS,
  ) {}

  get(tid: number): ReplayThread {
    let th = this.threads.find((t) => t.tid === tid);
    if (th === undefined) {
      th = new ReplayThread(tid, this.names.get(tid) ?? (tid === 0 ? 'main' : `thread${tid}`));
      this.threads.push(th);
    }
    return th;
  }

  /** Applies a trace event's effect on the threads; says what it released (Synced). */
  sync(e: SchedEvent, role: Role): Synced {
    const th = this.get(e.tid);
    switch (e.op) {
      case 'lock':
      case 'trylock':
      case 'timedlock':
      case 'relock':
        if (role === 'mx' && e.arg === 0) this.mxOwner = e.tid;
        return role === 'gmx' && e.op === 'relock' ? GATE_RELOCK : NONE;
      case 'unlock':
        if (role === 'gmx') return GATE_UNLOCK;
        if (role !== 'mx') return NONE;
        this.mxOwner = -1;
        return UNLOCKED;
      case 'wait':
      case 'timedwait':
        return this.sleep(th, e.obj, role);
      case 'signal':
        if (e.arg >= 0) this.wake(this.get(e.arg));
        return NONE;
      case 'broadcast':
        for (const t of this.threads) if (t.sleepsOn === e.obj) this.wake(t);
        return NONE;
      case 'spurious':
      case 'timeout':
        this.wake(th);
        return NONE;
      case 'exit':
        th.state = ThreadState.Done;
        return NONE;
      default:
        return NONE;
    }
  }

  private sleep(th: ReplayThread, obj: number, role: Role): Synced {
    th.sleepsOn = obj;
    if (role !== 'cv' && role !== 'cv_take' && role !== 'gcv') return NONE;
    th.state = ThreadState.CvWait;
    th.waitingOn = role;
    if (role === 'gcv') return GATE_WAIT;
    this.mxOwner = -1;
    return { release: true, cv: role, gate: null };
  }

  private wake(th: ReplayThread): void {
    th.sleepsOn = 0;
    th.state = ThreadState.Ready;
    th.waitingOn = null;
  }

  /** Every unfinished thread and what it waits on, for a deadlock's report. */
  describe(): string {
    return this.threads
      .filter((t) => t.state !== ThreadState.Done)
      .map((t) => `${t.name}${t.waitingOn !== null ? ` waits on ${t.waitingOn}` : ''}`)
      .join('; ');
  }
}

/** What a trace event released: mx (`release`, with the cv waited on), or gmx (`gate`:
 *  an unlock, a wait on gcv; 'relock': gmx taken back after such a wait). */
export interface Synced {
  readonly release: boolean;
  readonly cv: CvName | null;
  readonly gate: 'unlock' | 'wait' | 'relock' | null;
}

const NONE: Synced = { release: false, cv: null, gate: null };
const UNLOCKED: Synced = { release: true, cv: null, gate: null };
const GATE_UNLOCK: Synced = { release: false, cv: null, gate: 'unlock' };
const GATE_WAIT: Synced = { release: false, cv: null, gate: 'wait' };
const GATE_RELOCK: Synced = { release: false, cv: null, gate: 'relock' };
