/**
 * A log's events stored by column: one typed array per numeric field, one byte per name
 * (source, lock, kind, entry point), the file and line each came from. A long decode
 * writes millions of events; held as one object each, the garbage collector cost more than
 * reading and checking them together. The check walks the columns through one reusable
 * view (`load`) and builds an event object only for what it reports (`event`). Every
 * number of the schema has its column: the rules read most of them, the reference's replay
 * (trace_records.ts) also the expert's heat and the gate's want_x and x.
 *
 * Invariants: row i holds the i-th event read, every field as parseTraceLine gives it
 * (absent keys, devices, parts and ids -1, absent counters 0); rows never move.
 */
import { EVENT_KINDS, FN_NAMES, LOCKS, SOURCES, type EventKind, type LockName, type Source } from '../replay/schema.js';
import type { TraceEvent } from './trace_event.js';

/** The numeric fields of an event, in column order. */
export const NUM_FIELDS = [
  'seq',
  'tid',
  'sec',
  'after',
  'id',
  'layer',
  'eid',
  'dev',
  'part',
  'vlayer',
  'veid',
  'value',
  'value2',
  'inflight',
  'qn',
  'waiters',
  'tick',
  'flags',
  'vflags',
  'used',
  'budget',
  'life',
  'live',
  'heat',
  'want_x',
  'x',
] as const;
export type NumField = (typeof NUM_FIELDS)[number];

/** The names of the `fn` column: the entry points, then '' (none) last. */
const FNS: readonly string[] = [...FN_NAMES, ''];
export const FN_NONE = FNS.length - 1;

/** A TraceEvent whose fields the walk overwrites row after row (no allocation per event). */
export class EventView implements TraceEvent {
  seq = 0;
  src: Source = 'tier';
  lk: LockName = '-';
  tid = 0;
  ev: EventKind = 'call';
  fn = '';
  sec = 0;
  after = 0;
  id = -1;
  layer = -1;
  eid = -1;
  dev = -1;
  part = -1;
  vlayer = -1;
  veid = -1;
  value = 0;
  value2 = 0;
  inflight = 0;
  qn = 0;
  waiters = 0;
  tick = 0;
  flags = 0;
  vflags = 0;
  used = 0;
  budget = 0;
  life = 0;
  live = 0;
  heat = 0;
  want_x = 0;
  x = 0;
  file = '';
  line = 0;
}

export class TraceColumns {
  n = 0;
  private cap = 0;
  num: Float64Array[] = NUM_FIELDS.map(() => new Float64Array(0));
  src = new Uint8Array(0);
  lk = new Uint8Array(0);
  ev = new Uint8Array(0);
  fn = new Uint8Array(0);
  fileOf = new Uint16Array(0);
  line = new Int32Array(0);
  readonly files: string[] = [];

  /** Room for `more` rows beyond those held (one copy now instead of many doublings). */
  reserve(more: number): void {
    if (this.n + more > this.cap) this.grow(this.n + more);
  }

  /** A new row (grown by doubling); the caller fills every column of it. */
  row(): number {
    if (this.n === this.cap) this.grow(Math.max(1024, this.cap * 2));
    return this.n++;
  }

  private grow(cap: number): void {
    const more = <T extends Float64Array | Uint8Array | Uint16Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.num = this.num.map((a) => more(a, (n) => new Float64Array(n)));
    this.src = more(this.src, (n) => new Uint8Array(n));
    this.lk = more(this.lk, (n) => new Uint8Array(n));
    this.ev = more(this.ev, (n) => new Uint8Array(n));
    this.fn = more(this.fn, (n) => new Uint8Array(n));
    this.fileOf = more(this.fileOf, (n) => new Uint16Array(n));
    this.line = more(this.line, (n) => new Int32Array(n));
    this.cap = cap;
  }

  /** The index of a file's name (the files of one log share the columns). */
  fileIndex(file: string): number {
    const i = this.files.indexOf(file);
    if (i >= 0) return i;
    this.files.push(file);
    return this.files.length - 1;
  }

  /** Appends an event read by the slow path. */
  push(e: TraceEvent): void {
    const r = this.row();
    NUM_FIELDS.forEach((f, i) => {
      const col = this.num[i];
      if (col !== undefined) col[r] = e[f];
    });
    this.src[r] = SOURCES.indexOf(e.src);
    this.lk[r] = LOCKS.indexOf(e.lk);
    this.ev[r] = EVENT_KINDS.indexOf(e.ev);
    this.fn[r] = e.fn === '' ? FN_NONE : Math.max(0, FNS.indexOf(e.fn));
    this.fileOf[r] = this.fileIndex(e.file);
    this.line[r] = e.line;
  }

  /** Row `r` into the view (every field overwritten). */
  load(v: EventView, r: number): EventView {
    const m = this.num;
    v.seq = m[0]?.[r] ?? 0;
    v.tid = m[1]?.[r] ?? 0;
    v.sec = m[2]?.[r] ?? 0;
    v.after = m[3]?.[r] ?? 0;
    v.id = m[4]?.[r] ?? 0;
    v.layer = m[5]?.[r] ?? 0;
    v.eid = m[6]?.[r] ?? 0;
    v.dev = m[7]?.[r] ?? 0;
    v.part = m[8]?.[r] ?? 0;
    v.vlayer = m[9]?.[r] ?? 0;
    v.veid = m[10]?.[r] ?? 0;
    v.value = m[11]?.[r] ?? 0;
    v.value2 = m[12]?.[r] ?? 0;
    v.inflight = m[13]?.[r] ?? 0;
    v.qn = m[14]?.[r] ?? 0;
    v.waiters = m[15]?.[r] ?? 0;
    v.tick = m[16]?.[r] ?? 0;
    v.flags = m[17]?.[r] ?? 0;
    v.vflags = m[18]?.[r] ?? 0;
    v.used = m[19]?.[r] ?? 0;
    v.budget = m[20]?.[r] ?? 0;
    v.life = m[21]?.[r] ?? 0;
    v.live = m[22]?.[r] ?? 0;
    v.heat = m[23]?.[r] ?? 0;
    v.want_x = m[24]?.[r] ?? 0;
    v.x = m[25]?.[r] ?? 0;
    v.src = SOURCES[this.src[r] ?? 0] ?? 'tier';
    v.lk = LOCKS[this.lk[r] ?? 0] ?? '-';
    v.ev = EVENT_KINDS[this.ev[r] ?? 0] ?? 'call';
    v.fn = FNS[this.fn[r] ?? FN_NONE] ?? '';
    v.file = this.files[this.fileOf[r] ?? 0] ?? '';
    v.line = this.line[r] ?? 0;
    return v;
  }

  /** Row `r` as an event object of its own (for a report). */
  event(r: number): TraceEvent {
    return { ...this.load(new EventView(), r) };
  }
}
