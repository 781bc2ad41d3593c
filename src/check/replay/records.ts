/**
 * A C tier run's record stream, as the replay reads it: the tier's, the gate's, the
 * trunk's and the backend's events (native/tier/EVENTS.md), the scheduler's trace, the
 * engine driver's events at the tier's boundary, the run's sync objects and threads, and
 * the heat file's bytes where the tier read or wrote it. `decodeRecords` reads the
 * harness's packed form (native/tier/harness/th.h); a free run's NDJSON log maps onto the
 * same records.
 *
 * Invariant: records are in the run's one order (the scheduler runs one thread at a
 * time, and each record knows its place in the trace); the object and thread tables come
 * last, after every event.
 */
import {
  CLASS,
  ENGINE_KINDS,
  EVENT_KINDS,
  REC_WORDS,
  ROLES,
  SCHED_OPS,
  SOURCES,
  type EngineKind,
  type EventKind,
  type Role,
  type SchedOp,
  type Source,
} from './schema.js';

/** A tt_event: fields that do not apply hold -1 (keys, devices, parts) or 0. */
export interface TierEvent {
  readonly c: 'event';
  readonly src: Source;
  readonly ev: EventKind;
  /** TT_LK_*: 0 none, 1 mx, 2 gmx, 3 tmx, 4 the backend's own, 5 an exclusive section */
  readonly lk: number;
  readonly tid: number;
  readonly fn: number;
  readonly layer: number;
  readonly eid: number;
  readonly dev: number;
  readonly part: number;
  readonly vlayer: number;
  readonly veid: number;
  readonly value: number;
  readonly value2: number;
  readonly inflight: number;
  readonly qn: number;
  readonly waiters: number;
  readonly tick: number;
  readonly used: number;
  readonly budget: number;
  readonly heat: number;
  readonly flags: number;
  readonly vflags: number;
  readonly id: number;
  readonly sec: number;
  readonly life: number;
  readonly live: number;
}

export interface SchedEvent {
  readonly c: 'sched';
  readonly step: number;
  readonly tid: number;
  readonly op: SchedOp;
  /** the object's id in the run (0: none) */
  readonly obj: number;
  readonly arg: number;
}

export interface EngineEvent {
  readonly c: 'engine';
  readonly kind: EngineKind;
  readonly tid: number;
  /** the kind's arguments (th.h, TH_EV_*) */
  readonly a: readonly number[];
}

export interface ObjectInfo {
  readonly c: 'object';
  readonly id: number;
  readonly role: Role;
}

export interface ThreadInfo {
  readonly c: 'thread';
  readonly tid: number;
  readonly parent: number;
  readonly name: string;
}

/** The heat file's bytes at the event before (length -1: there was no file). */
export interface Blob {
  readonly c: 'blob';
  readonly offset: number;
  readonly length: number;
}

export type Rec = TierEvent | SchedEvent | EngineEvent | ObjectInfo | ThreadInfo | Blob;

const W = {
  src: 1,
  kind: 2,
  lk: 3,
  tid: 4,
  fn: 5,
  layer: 6,
  eid: 7,
  dev: 8,
  part: 9,
  vlayer: 10,
  veid: 11,
  value: 12,
  value2: 14,
  inflight: 16,
  qn: 17,
  waiters: 18,
  tick: 19,
  used: 21,
  budget: 23,
  heat: 25,
  flags: 26,
  vflags: 27,
  id: 28,
  sec: 29,
  gate: 30,
} as const;

function i64(w: Int32Array, at: number): number {
  return (w[at + 1] ?? 0) * 4294967296 + ((w[at] ?? 0) >>> 0);
}

function name<T extends string>(table: readonly T[], i: number, what: string): T {
  const n = table[i];
  if (n === undefined) throw new RangeError(`record stream: unknown ${what} ${i}`);
  return n;
}

function tierEvent(w: Int32Array, b: number): TierEvent {
  const at = (k: number): number => w[b + k] ?? 0;
  const gate = at(W.gate);
  return {
    c: 'event',
    src: name(SOURCES, at(W.src), 'source'),
    ev: name(EVENT_KINDS, at(W.kind), 'event kind'),
    lk: at(W.lk),
    tid: at(W.tid),
    fn: at(W.fn),
    layer: at(W.layer),
    eid: at(W.eid),
    dev: at(W.dev),
    part: at(W.part),
    vlayer: at(W.vlayer),
    veid: at(W.veid),
    value: i64(w, b + W.value),
    value2: i64(w, b + W.value2),
    inflight: at(W.inflight),
    qn: at(W.qn),
    waiters: at(W.waiters),
    tick: i64(w, b + W.tick),
    used: i64(w, b + W.used),
    budget: i64(w, b + W.budget),
    heat: at(W.heat) >>> 0,
    flags: at(W.flags),
    vflags: at(W.vflags),
    id: at(W.id),
    sec: at(W.sec),
    life: gate & 0xff,
    live: (gate >>> 8) & 0xff,
  };
}

const utf8 = new TextDecoder();

function threadName(w: Int32Array, b: number): string {
  const bytes = new Uint8Array(w.buffer, w.byteOffset + (b + 3) * 4, 16);
  const end = bytes.indexOf(0);
  return utf8.decode(bytes.subarray(0, end < 0 ? 16 : end));
}

/** The first `n` records of a packed stream. */
export function decodeRecords(w: Int32Array, n: number): Rec[] {
  const out: Rec[] = [];
  for (let i = 0; i < n; i++) {
    const b = i * REC_WORDS;
    const at = (k: number): number => w[b + k] ?? 0;
    switch (at(0)) {
      case CLASS.event:
        out.push(tierEvent(w, b));
        break;
      case CLASS.sched:
        out.push({
          c: 'sched',
          step: at(1),
          tid: at(2),
          op: name(SCHED_OPS, at(3), 'scheduler op'),
          obj: at(4),
          arg: at(5),
        });
        break;
      case CLASS.engine:
        out.push({
          c: 'engine',
          kind: name(ENGINE_KINDS, at(1), 'engine event'),
          tid: at(2),
          a: Array.from(w.subarray(b + 3, b + 10)),
        });
        break;
      case CLASS.object:
        out.push({ c: 'object', id: at(1), role: name(ROLES, at(4), 'object role') });
        break;
      case CLASS.thread:
        out.push({ c: 'thread', tid: at(1), parent: at(2), name: threadName(w, b) });
        break;
      case CLASS.blob:
        out.push({ c: 'blob', offset: at(1), length: at(2) });
        break;
      default:
        throw new RangeError(`record stream: record ${i} has class ${at(0)}`);
    }
  }
  return out;
}
