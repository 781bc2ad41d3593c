/**
 * The wire format of the parallel DPOR search (dpor/parallel.ts, dpor/run_task.ts): the
 * lists a task and a run's report carry (enabled events, sleep sets, a run's events with
 * their races) packed into typed arrays, which cross between threads as one copy instead
 * of hundreds of small objects cloned one by one (that cloning cost as much as the run).
 *
 * Layouts (all Int32Array):
 *  - enabled events: count, then key, reads, writes, mx, preempts (0/1) per event (mx:
 *    the role plus 8 times its mutex, dependence.ts);
 *  - branches (sleep sets): count, then key, choice, reads, writes, mx, complete (0/1);
 *  - events: count, then tid, key, reads, writes, mx, choice, seq, race count, races.
 * Lists are concatenated; a Reader walks them in order.
 *
 * Invariant: decode(encode(x)) equals x field by field (footprints come back interned).
 */
import { fp, type MxRole } from './dependence.js';
import type { DoneBranch, EnabledEvent } from './node.js';
import type { RunEvent } from './happens_before.js';

/** Appends lists to one growing Int32Array. */
export class Writer {
  private buf = new Int32Array(256);
  private n = 0;

  push(x: number): void {
    if (this.n === this.buf.length) {
      const grown = new Int32Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.buf[this.n++] = x;
  }

  enabled(list: readonly EnabledEvent[]): void {
    this.push(list.length);
    for (const e of list) {
      this.push(e.key);
      this.fp(e.fp);
      this.push(e.preempts ? 1 : 0);
    }
  }

  branches(list: readonly DoneBranch[]): void {
    this.push(list.length);
    for (const b of list) {
      this.push(b.key);
      this.push(b.choice);
      this.fp(b.fp);
      this.push(b.complete ? 1 : 0);
    }
  }

  events(list: readonly RunEvent[]): void {
    this.push(list.length);
    for (const e of list) {
      this.push(e.tid);
      this.push(e.key);
      this.fp(e.fp);
      this.push(e.choice);
      this.push(e.seq);
      this.push(e.races.length);
      for (const r of e.races) this.push(r);
    }
  }

  done(): Int32Array {
    return this.buf.slice(0, this.n);
  }

  private fp(f: { reads: number; writes: number; mx: MxRole; mutex: 0 | 1 | 2 }): void {
    this.push(f.reads);
    this.push(f.writes);
    // the role and its mutex in one number
    this.push(f.mx + 8 * f.mutex);
  }
}

/** Reads back what a Writer wrote, in the same order. */
export class Reader {
  private at = 0;

  constructor(private readonly buf: Int32Array) {}

  next(): number {
    const x = this.buf[this.at++];
    if (x === undefined) throw new Error('internal error: a parallel search message ended early');
    return x;
  }

  enabled(): EnabledEvent[] {
    const out: EnabledEvent[] = [];
    for (let n = this.next(); n > 0; n--) {
      const key = this.next();
      const f = this.fp();
      out.push({ key, fp: f, preempts: this.next() === 1 });
    }
    return out;
  }

  branches(): DoneBranch[] {
    const out: DoneBranch[] = [];
    for (let n = this.next(); n > 0; n--) {
      const key = this.next();
      const choice = this.next();
      const f = this.fp();
      out.push({ key, choice, fp: f, complete: this.next() === 1 });
    }
    return out;
  }

  events(): RunEvent[] {
    const out: RunEvent[] = [];
    for (let n = this.next(); n > 0; n--) {
      const tid = this.next();
      const key = this.next();
      const f = this.fp();
      const choice = this.next();
      const seq = this.next();
      const races: number[] = [];
      for (let r = this.next(); r > 0; r--) races.push(this.next());
      out.push({ tid, key, fp: f, choice, seq, races });
    }
    return out;
  }

  private fp(): ReturnType<typeof fp> {
    const reads = this.next();
    const writes = this.next();
    const role = this.next();
    return fp((role % 8) as MxRole, reads, writes, Math.floor(role / 8) as 0 | 1 | 2);
  }
}
