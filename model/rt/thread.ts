/**
 * A simulated thread: a generator plus what it is blocked on.
 *
 * `pending` is the op the thread yielded and has not executed yet; the thread can move
 * when that op can execute (a `lock` needs mx free, a `join` a finished target). A thread
 * in a condition-variable wait has no pending op until it is woken; then it must
 * re-acquire mx (`reacquire`) before its `wait` returns.
 */
import { mutexOfOp, type CvName, type Gen, type MutexName, type Op } from '../../src/ops.js';
import { ThreadState, type ThreadView } from '../../src/check/checker.js';

export { ThreadState };

export class SimThread implements ThreadView {
  state = ThreadState.Ready;
  pending: Op | null = null;
  /** woken from a cv wait: must take mx before going on */
  reacquire = false;
  /** the mutex a woken waiter re-takes (its condition variable's) */
  relock: MutexName = 'mx';
  waitingOn: CvName | null = null;
  /** tier API calls in progress (from call/ret marks), for deadlock reports */
  readonly api: string[] = [];

  constructor(
    readonly tid: number,
    readonly name: string,
    readonly gen: Gen<void>,
  ) {}

  isDone(): boolean {
    return this.state === ThreadState.Done;
  }

  /** what the thread is doing, for deadlock and livelock reports */
  describe(): string {
    const where = this.api.length > 0 ? ` in ${this.api.join(' > ')}` : '';
    if (this.state === ThreadState.Done) return `${this.name}: finished`;
    if (this.state === ThreadState.CvWait) return `${this.name}${where}: waits on ${this.waitingOn ?? '?'}`;
    if (this.reacquire) return `${this.name}${where}: woken, waits for ${this.relock}`;
    const op = this.pending;
    if (op === null) return `${this.name}${where}: not started`;
    if (op.k === 'lock') return `${this.name}${where}: waits for ${mutexOfOp(op)}`;
    if (op.k === 'join') return `${this.name}${where}: joins thread ${op.tid}`;
    return `${this.name}${where}: about to ${op.k}`;
  }
}
