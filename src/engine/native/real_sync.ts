/**
 * The tier's one mutex and two condition variables for real concurrency: the uploader
 * is an async task whose backend calls run on native threads, the decode thread runs on
 * the main thread, and they meet here. Mesa semantics as in the model: a woken waiter
 * re-takes the mutex and re-checks its predicate (the tier's `while`s do that).
 *
 * Discipline errors are the model's SYNC-DISCIPLINE violations, raised the same way.
 */
import { Violation } from '../../../model/rt/violation.js';

export class RealMutex {
  owner = -1;
  private readonly queue: (() => void)[] = [];

  async lock(tid: number): Promise<void> {
    if (this.owner === tid) throw new Violation('SYNC-DISCIPLINE', `thread ${tid} locks mx it already holds`);
    while (this.owner >= 0) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.owner = tid;
  }

  unlock(tid: number): void {
    if (this.owner !== tid) throw new Violation('SYNC-DISCIPLINE', `thread ${tid} unlocks mx it does not hold`);
    this.owner = -1;
    this.queue.shift()?.();
  }
}

export class RealCondVar {
  private waiters: (() => void)[] = [];

  constructor(readonly name: string) {}

  async wait(mx: RealMutex, tid: number): Promise<void> {
    if (mx.owner !== tid) throw new Violation('SYNC-DISCIPLINE', `thread ${tid} waits on ${this.name} without holding mx`);
    const woken = new Promise<void>((resolve) => this.waiters.push(resolve));
    mx.unlock(tid);
    await woken;
    await mx.lock(tid);
  }

  signal(): void {
    this.waiters.shift()?.();
  }

  broadcast(): void {
    const all = this.waiters;
    this.waiters = [];
    for (const wake of all) wake();
  }

  get waiting(): number {
    return this.waiters.length;
  }
}
