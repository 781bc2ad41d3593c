/**
 * The tier's one mutex and two condition variables for real concurrency: the uploader
 * is an async task whose backend calls run on native threads, the decode thread runs on
 * the main thread, and they meet here. Mesa semantics as in the model: a woken waiter
 * re-takes the mutex and re-checks its predicate (the tier's `while`s do that).
 *
 * Discipline errors are the shared SYNC-DISCIPLINE rules (src/check/sync_discipline.ts).
 * A waiter's thread view says CvWait from the moment it sleeps until it is woken, so the
 * checkers see a real run's sleepers as they see a simulated run's.
 */
import { mutexOfCv, type CvName } from '../../ops.js';
import { ThreadState } from '../../check/checker.js';
import { mustHoldMx, mustNotRelock, mustOwnToUnlock } from '../../check/sync_discipline.js';

/** A real thread as the checkers see it. */
export class RealThread {
  state = ThreadState.Ready;
  waitingOn: CvName | null = null;
  /** what it is blocked on, for a stall report */
  doing = 'running';

  constructor(
    readonly tid: number,
    readonly name: string,
  ) {}
}

export class RealMutex {
  owner = -1;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly name: 'mx' | 'gmx' = 'mx') {}

  /** Taken at once when free (no promise: an uncontended lock is most locks of a fill),
   *  else a promise that resolves once th holds it. */
  lock(th: RealThread): Promise<void> | undefined {
    mustNotRelock(this.owner, th, this.name);
    if (this.owner < 0) {
      this.owner = th.tid;
      return undefined;
    }
    return this.lockLater(th);
  }

  private async lockLater(th: RealThread): Promise<void> {
    while (this.owner >= 0) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.owner = th.tid;
  }

  unlock(th: RealThread): void {
    mustOwnToUnlock(this.owner, th, this.name);
    this.owner = -1;
    this.queue.shift()?.();
  }
}

export class RealCondVar {
  private waiters: { th: RealThread; resolve: () => void }[] = [];

  constructor(readonly name: CvName) {}

  /** Parks th on this condition variable and releases mx; resolves once th is woken. */
  sleep(mx: RealMutex, th: RealThread): Promise<void> {
    mustHoldMx(mx.owner, th, `waits on ${this.name}`, mutexOfCv(this.name));
    const woken = new Promise<void>((resolve) => this.waiters.push({ th, resolve }));
    th.state = ThreadState.CvWait;
    th.waitingOn = this.name;
    mx.unlock(th);
    return woken;
  }

  signal(): void {
    const w = this.waiters.shift();
    if (w !== undefined) wakeUp(w);
  }

  broadcast(): void {
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) wakeUp(w);
  }

  get waiting(): number {
    return this.waiters.length;
  }
}

function wakeUp(w: { th: RealThread; resolve: () => void }): void {
  w.th.state = ThreadState.Ready;
  w.th.waitingOn = null;
  w.resolve();
}
