/**
 * The happens-before order of one run, as vector clocks, and the races DPOR reverses.
 *
 * Events are appended in execution order. An event's clock is its thread's clock joined
 * with the clock of every earlier event it depends on (dependence.ts): the last write of
 * each object it touches and, when it writes, the reads since; for any mx event the last
 * mx event; for a join the last event of the joined thread; a spawned thread starts from
 * its spawn's clock, and a woken waiter continues from the clock of what woke it. So e happens before f exactly when clock(f)[tid(e)] >= seq(e).
 *
 * Races are found as each event is appended (Flanagan and Godefroid's vector-clock
 * scheme): its candidates are the last conflicting accesses of other threads that are
 * co-enabled with it (an acquisition against the last acquisition and the last spurious
 * wakeup, a spurious wakeup against the last mx event, a holder's step against the last
 * spurious wakeup; for objects the reads since the last write, else that write), and a
 * candidate races when it is not already ordered before the event's thread (compared
 * with the thread's clock before the event). Only the latest candidate of each kind can
 * be a direct race: every earlier conflicting access is ordered before it. The two
 * mutexes (mx and the gate's gmx) each have their own last event, acquisition and
 * spurious wakeup; a spurious wakeup also meets the other mutex's last spurious wakeup
 * (one budget), and an event that involves both meets both.
 *
 * Invariants: seq(e) counts e's thread's events from 1; an event's clock never changes
 * once stored (threads' running clocks are separate arrays).
 */
import { coEnabled, isSpurious, MxRole, reversible, type EventFp } from './dependence.js';
import { RESTORE, SAVE, type SavesItself } from '../state/restore/snapshot.js';

/** object bits footprint.ts and dependence.ts use, one slot each */
const OBJECT_BITS = 8;

export interface RunEvent {
  readonly tid: number;
  /** tid * 2, plus 1 for a spurious wakeup */
  readonly key: number;
  readonly fp: EventFp;
  /** which waiter a signal in this step woke (option index), -1 if no such choice */
  choice: number;
  readonly seq: number;
  /** indices of earlier events this one races with */
  readonly races: readonly number[];
}

/** What race reversal reads of a run's order: its events and their clocks. */
export interface EventOrder {
  readonly events: readonly RunEvent[];
  readonly length: number;
  /** entry `tid` of event e's clock */
  clockAt(e: number, tid: number): number;
  /** e happens before (or is) f */
  ordered(e: number, f: number): boolean;
}

/** A finished run's order as plain data (what a worker thread's report carries, dpor/run_task.ts). */
export interface RunOrderData {
  readonly events: readonly RunEvent[];
  readonly clocks: Int32Array;
  readonly width: number;
}

/** A finished run's order read back from its plain data (snapshot()). */
export class RunOrder implements EventOrder {
  constructor(private readonly data: RunOrderData) {}

  get events(): readonly RunEvent[] {
    return this.data.events;
  }

  get length(): number {
    return this.data.events.length;
  }

  clockAt(e: number, tid: number): number {
    return this.data.clocks[e * this.data.width + tid] ?? 0;
  }

  ordered(e: number, f: number): boolean {
    const a = this.data.events[e];
    return a !== undefined && f < this.length && this.clockAt(f, a.tid) >= a.seq;
  }
}

/** What a snapshot keeps of the order between steps: events and clocks up to `length` never change. */
interface SavedOrder {
  readonly length: number;
  readonly threadClock: readonly (Int32Array | null)[];
  readonly lastOfThread: Int32Array;
  readonly lastWrite: Int32Array;
  readonly readsSince: readonly Int32Array[];
  readonly last: readonly number[];
}

export class HappensBefore implements EventOrder, SavesItself {
  readonly events: RunEvent[] = [];
  private readonly width: number;
  /** every event's clock, `width` entries each, in event order (never changed once written) */
  private clocks: Int32Array;
  /** the clock each thread's next event starts from (null: the thread does not exist) */
  private readonly threadClock: (Int32Array | null)[];
  private readonly lastOfThread: Int32Array;
  private readonly lastWrite = new Int32Array(OBJECT_BITS).fill(-1);
  /** per object, per thread: its last read since the object's last write (-1: none) */
  private readonly readsSince: Int32Array[];
  /** per mutex (0 mx, 1 gmx): its last event, acquisition and spurious wakeup */
  private readonly lastMx = new Int32Array(2).fill(-1);
  private readonly lastAcquire = new Int32Array(2).fill(-1);
  private readonly lastSpurious = new Int32Array(2).fill(-1);
  /** the event being appended: its thread, footprint, pre-clock, clock, races */
  private tid = 0;
  private fp: EventFp | null = null;
  private pre: Int32Array = new Int32Array(0);
  private readonly clock: Int32Array;
  private races: number[] = [];

  constructor(maxThreads: number) {
    this.width = maxThreads;
    this.clocks = new Int32Array(maxThreads * 256);
    this.clock = new Int32Array(maxThreads);
    this.threadClock = new Array<Int32Array | null>(maxThreads).fill(null);
    this.threadClock[0] = new Int32Array(maxThreads);
    this.lastOfThread = new Int32Array(maxThreads).fill(-1);
    this.readsSince = Array.from({ length: OBJECT_BITS }, () => new Int32Array(maxThreads).fill(-1));
  }

  get length(): number {
    return this.events.length;
  }

  /** entry `tid` of event e's clock */
  clockAt(e: number, tid: number): number {
    return this.clocks[e * this.width + tid] ?? 0;
  }

  /** e happens before (or is) f */
  ordered(e: number, f: number): boolean {
    const a = this.events[e];
    return a !== undefined && f < this.events.length && this.clockAt(f, a.tid) >= a.seq;
  }

  /** between steps (restore/snapshot.ts): what changes as events are appended */
  [SAVE](): SavedOrder {
    return {
      length: this.events.length,
      threadClock: this.threadClock.map((c) => (c === null ? null : c.slice())),
      lastOfThread: this.lastOfThread.slice(),
      lastWrite: this.lastWrite.slice(),
      readsSince: this.readsSince.map((r) => r.slice()),
      last: [...this.lastMx, ...this.lastAcquire, ...this.lastSpurious],
    };
  }

  /** back to a saved point of the same run: later events go, the clocks they changed return */
  [RESTORE](saved: unknown): void {
    const s = saved as SavedOrder;
    this.events.length = s.length;
    s.threadClock.forEach((c, t) => {
      this.threadClock[t] = c === null ? null : c.slice();
    });
    this.lastOfThread.set(s.lastOfThread);
    this.lastWrite.set(s.lastWrite);
    s.readsSince.forEach((r, o) => this.readsSince[o]?.set(r));
    this.lastMx.set(s.last.slice(0, 2));
    this.lastAcquire.set(s.last.slice(2, 4));
    this.lastSpurious.set(s.last.slice(4, 6));
  }

  /** the run so far as plain data (events and their clocks) */
  snapshot(): RunOrderData {
    return { events: this.events, clocks: this.clocks.slice(0, this.events.length * this.width), width: this.width };
  }

  /** e happens before everything thread tid has done so far (or will do next) */
  orderedBeforeThread(e: number, tid: number): boolean {
    const a = this.events[e];
    const c = this.threadClock[tid];
    return a !== undefined && c !== null && c !== undefined && (c[a.tid] ?? 0) >= a.seq;
  }

  /** the spawn just appended started no thread after all (a fault plan) */
  unspawn(tid: number): void {
    if (tid > 0 && tid < this.width) this.threadClock[tid] = null;
  }

  /**
   * A waiter was woken by event e (a signal or broadcast): its next event, the re-lock,
   * is ordered after e (an enabling edge: it cannot happen before it was woken).
   */
  woken(tid: number, e: number): void {
    const c = this.threadClock[tid];
    if (c === null || c === undefined || e >= this.events.length) return;
    this.joinEvent(c, e);
  }

  /**
   * Appends an event. `spawned`: the tid a spawn creates; `joined`: the tid a join
   * waits for (its last event is ordered before this one).
   */
  append(tid: number, key: number, fp: EventFp, spawned = -1, joined = -1): RunEvent {
    const pre = this.threadClock[tid];
    if (pre === null || pre === undefined) throw new Error(`internal error: thread ${tid} moved before it was spawned`);
    const index = this.events.length;
    this.tid = tid;
    this.fp = fp;
    this.pre = pre;
    this.clock.set(pre);
    this.races = [];
    for (let o = 0; o < OBJECT_BITS; o++) {
      const bit = 1 << o;
      const reads = this.readsSince[o];
      if (reads === undefined) continue;
      if ((fp.writes & bit) !== 0) {
        let anyRead = false;
        for (let u = 0; u < this.width; u++) {
          const r = reads[u] ?? -1;
          if (r >= 0 && u !== tid) {
            anyRead = true;
            this.consider(r, true);
          }
        }
        this.consider(this.lastWrite[o] ?? -1, !anyRead);
      } else if ((fp.reads & bit) !== 0) {
        this.consider(this.lastWrite[o] ?? -1, true);
      }
    }
    if (fp.mx !== MxRole.None) this.considerMutexes(fp);
    if (joined >= 0) this.consider(this.lastOfThread[joined] ?? -1, false);
    const seq = (pre[tid] ?? 0) + 1;
    this.clock[tid] = seq;
    const ev: RunEvent = { tid, key, fp, choice: -1, seq, races: this.races };
    this.events.push(ev);
    if ((index + 1) * this.width > this.clocks.length) {
      const grown = new Int32Array(this.clocks.length * 2);
      grown.set(this.clocks);
      this.clocks = grown;
    }
    this.clocks.set(this.clock, index * this.width);
    pre.set(this.clock);
    this.lastOfThread[tid] = index;
    if (spawned >= 0 && spawned < this.width) this.threadClock[spawned] = this.clock.slice();
    for (let o = 0; o < OBJECT_BITS; o++) {
      const bit = 1 << o;
      const reads = this.readsSince[o];
      if (reads === undefined) continue;
      if ((fp.writes & bit) !== 0) {
        this.lastWrite[o] = index;
        reads.fill(-1);
      } else if ((fp.reads & bit) !== 0) {
        reads[tid] = index;
      }
    }
    if (fp.mx !== MxRole.None) {
      for (const m of mutexesOf(fp)) {
        this.lastMx[m] = index;
        if (fp.mx === MxRole.Acquire) this.lastAcquire[m] = index;
        if (isSpurious(fp.mx)) this.lastSpurious[m] = index;
      }
    }
    return ev;
  }

  /** The mutex events the appended one depends on (and may race with), per mutex. */
  private considerMutexes(fp: EventFp): void {
    for (const m of mutexesOf(fp)) {
      if (fp.mx === MxRole.Acquire) {
        this.consider(this.lastAcquire[m] ?? -1, true);
        this.consider(this.lastSpurious[m] ?? -1, true);
      } else if (isSpurious(fp.mx)) {
        this.consider(this.lastMx[m] ?? -1, true);
      } else {
        this.consider(this.lastSpurious[m] ?? -1, true);
      }
      this.consider(this.lastMx[m] ?? -1, false);
    }
    // every spurious wakeup spends the one budget: it meets the other mutex's last one too
    if (isSpurious(fp.mx) && fp.mutex !== 2) this.consider(this.lastSpurious[1 - fp.mutex] ?? -1, true);
  }

  /** an earlier access the appended event depends on: join its clock, and note a race */
  private consider(e: number, race: boolean): void {
    if (e < 0) return;
    const ev = this.events[e];
    if (ev === undefined || ev.tid === this.tid) return;
    const fp = this.fp;
    if (
      race &&
      fp !== null &&
      (this.pre[ev.tid] ?? 0) < ev.seq &&
      coEnabled(ev.fp, fp) &&
      reversible(ev.fp, fp) &&
      !this.races.includes(e)
    )
      this.races.push(e);
    this.joinEvent(this.clock, e);
  }

  private joinEvent(into: Int32Array, e: number): void {
    const base = e * this.width;
    for (let i = 0; i < this.width; i++) {
      const v = this.clocks[base + i] ?? 0;
      if (v > (into[i] ?? 0)) into[i] = v;
    }
  }
}

const ONLY_MX: readonly number[] = [0];
const ONLY_GMX: readonly number[] = [1];
const BOTH: readonly number[] = [0, 1];

/** the mutexes an event takes part in */
function mutexesOf(fp: EventFp): readonly number[] {
  return fp.mutex === 0 ? ONLY_MX : fp.mutex === 1 ? ONLY_GMX : BOTH;
}
