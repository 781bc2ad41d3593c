/**
 * The engine's completion queue as the real world reads it: finished uploads and groups
 * arrive in batches, so a finished operation does not cost one event-loop turn each.
 *
 * Role: `drain` takes whatever is queued, synchronously (no turn at all); a thread that
 * needs a group that has not finished yet awaits `group(tag)`, and one native wait (on a
 * koffi worker thread) is kept outstanding for all such waiters together: when it
 * returns, everything queued by then is taken in one go and every waiter it satisfies
 * resumes. Upload completions are handed to `onUpload` as they are taken (the uploads
 * themselves never wait: the tensor is usable at once, tierlab.h).
 * Invariants: each completion is taken exactly once; a group completion that arrives
 * before anyone waits is kept until its waiter asks; at most one native wait is in
 * flight; closing stops re-arming (the wait in flight ends within WAIT_MS, or at once
 * when the engine is destroyed).
 */
import {
  COMPLETION_BYTES,
  DONE_GROUP,
  readCompletion,
  type Completion,
  type NativeEngineLib,
  type NativePtr,
} from './binding.js';

/** completions taken per native call */
const BATCH = 64;
/** one native wait's timeout: a lost wake-up costs at most this */
const WAIT_MS = 200;

export class CompletionQueue {
  private readonly buf = Buffer.alloc(BATCH * COMPLETION_BYTES);
  private readonly arrived = new Map<number, Completion>();
  private readonly waiters = new Map<number, (c: Completion) => void>();
  private waiting = false;
  private closed = false;
  /** native waits that returned: the event-loop turns completions cost */
  wakeups = 0;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    private readonly onUpload: (c: Completion) => void,
    private readonly onError: (message: string) => void,
  ) {}

  /** Takes everything queued now, without waiting. */
  drain(): void {
    for (;;) {
      const r = this.lib.completionsTake(this.engine, this.buf, BATCH);
      if (r.status.code !== 0) this.onError(`completions: ${r.status.message}`);
      for (let i = 0; i < r.n; i++) this.deliver(readCompletion(this.buf, i));
      if (r.n < BATCH) return;
    }
  }

  /** The group's completion: at once if it is in, else when the engine reports it. */
  group(tag: number): Completion | Promise<Completion> {
    if (!this.arrived.has(tag)) this.drain();
    const now = this.arrived.get(tag);
    if (now !== undefined) {
      this.arrived.delete(tag);
      return now;
    }
    return new Promise<Completion>((resolve) => {
      this.waiters.set(tag, resolve);
      this.arm();
    });
  }

  close(): void {
    this.closed = true;
  }

  private deliver(c: Completion): void {
    if (c.kind !== DONE_GROUP) {
      this.onUpload(c);
      return;
    }
    const wake = this.waiters.get(c.tag);
    if (wake === undefined) {
      this.arrived.set(c.tag, c);
      return;
    }
    this.waiters.delete(c.tag);
    wake(c);
  }

  /** One native wait for every waiter; re-armed while any is left. */
  private arm(): void {
    if (this.waiting || this.closed || this.waiters.size === 0) return;
    this.waiting = true;
    void this.lib.completionsWaitAsync(this.engine, 1, WAIT_MS).then((r) => {
      this.waiting = false;
      this.wakeups++;
      if (r.status.code !== 0 && !this.closed) this.onError(`completion wait: ${r.status.message}`);
      this.drain();
      this.arm();
    });
  }
}
