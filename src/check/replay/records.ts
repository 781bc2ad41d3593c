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
  /** gate events: an exclusive section queued (want_x) and held (x), after the action */
  readonly wantX: number;
  readonly x: number;
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

/** The heat file's bytes at the event before (length -1: there was no file; UNLOGGED: a
 *  free run's log, which does not carry them). */
export interface Blob {
  readonly c: 'blob';
  readonly offset: number;
  readonly length: number;
}

export const UNLOGGED = -2;

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
  const gate = w[b + W.gate] ?? 0;
  return {
    c: 'event',
    src: name(SOURCES, w[b + W.src] ?? -1, 'source'),
    ev: name(EVENT_KINDS, w[b + W.kind] ?? -1, 'event kind'),
    lk: w[b + W.lk] ?? 0,
    tid: w[b + W.tid] ?? 0,
    fn: w[b + W.fn] ?? 0,
    layer: w[b + W.layer] ?? 0,
    eid: w[b + W.eid] ?? 0,
    dev: w[b + W.dev] ?? 0,
    part: w[b + W.part] ?? 0,
    vlayer: w[b + W.vlayer] ?? 0,
    veid: w[b + W.veid] ?? 0,
    value: i64(w, b + W.value),
    value2: i64(w, b + W.value2),
    inflight: w[b + W.inflight] ?? 0,
    qn: w[b + W.qn] ?? 0,
    waiters: w[b + W.waiters] ?? 0,
    tick: i64(w, b + W.tick),
    used: i64(w, b + W.used),
    budget: i64(w, b + W.budget),
    heat: (w[b + W.heat] ?? 0) >>> 0,
    flags: w[b + W.flags] ?? 0,
    vflags: w[b + W.vflags] ?? 0,
    id: w[b + W.id] ?? 0,
    sec: w[b + W.sec] ?? 0,
    life: gate & 0xff,
    live: (gate >>> 8) & 0xff,
    wantX: (gate >>> 16) & 0xff,
    x: (gate >>> 24) & 0xff,
  };
}

const utf8 = new TextDecoder();

function threadName(w: Int32Array, b: number): string {
  const bytes = new Uint8Array(w.buffer, w.byteOffset + (b + 3) * 4, 16);
  const end = bytes.indexOf(0);
  return utf8.decode(bytes.subarray(0, end < 0 ? 16 : end));
}

/** Trace operations no checker reads: points that are not about the tier's sync objects. */
const UNREAD = new Set<SchedOp>(['backend', 'yield', 'load', 'store', 'rmw', 'start', 'none']);

/** The roles of the run's objects, from the table at the stream's end. */
function objectRoles(w: Int32Array, n: number): Map<number, Role> {
  const roles = new Map<number, Role>();
  for (let i = n - 1; i >= 0; i--) {
    const b = i * REC_WORDS;
    const cls = w[b] ?? -1;
    if (cls === CLASS.thread) continue;
    if (cls !== CLASS.object) break;
    roles.set(w[b + 1] ?? 0, name(ROLES, w[b + 4] ?? -1, 'object role'));
  }
  return roles;
}

function schedEvent(w: Int32Array, b: number): SchedEvent {
  const op = name(SCHED_OPS, w[b + 3] ?? -1, 'scheduler op');
  return { c: 'sched', step: w[b + 1] ?? 0, tid: w[b + 2] ?? 0, op, obj: w[b + 4] ?? 0, arg: w[b + 5] ?? 0 };
}

/**
 * The first `n` records of a packed stream. Left out: the trace's points that are not
 * about a sync object (backend entries, yields, atomics, a thread's first step) and what
 * the trunk's lock does (the reference keeps no trunk lock); kept: everything about mx,
 * cv, cv_take, the gate's gmx and gcv (the refinement's second mutex), threads' lives,
 * and every event.
 */
export function decodeRecords(w: Int32Array, n: number): Rec[] {
  const roles = objectRoles(w, n);
  const out: Rec[] = [];
  for (let i = 0; i < n; i++) {
    const b = i * REC_WORDS;
    const cls = w[b] ?? -1;
    if (cls === CLASS.event) out.push(tierEvent(w, b));
    else if (cls === CLASS.sched) {
      const e = schedEvent(w, b);
      const role = roles.get(e.obj);
      if (UNREAD.has(e.op) || role === 'tmx') continue;
      out.push(e);
    } else if (cls === CLASS.engine) {
      const a = [
        w[b + 3] ?? 0,
        w[b + 4] ?? 0,
        w[b + 5] ?? 0,
        w[b + 6] ?? 0,
        w[b + 7] ?? 0,
        w[b + 8] ?? 0,
        w[b + 9] ?? 0,
      ];
      out.push({ c: 'engine', kind: name(ENGINE_KINDS, w[b + 1] ?? -1, 'engine event'), tid: w[b + 2] ?? 0, a });
    } else if (cls === CLASS.object)
      out.push({ c: 'object', id: w[b + 1] ?? 0, role: name(ROLES, w[b + 4] ?? -1, 'role') });
    else if (cls === CLASS.thread)
      out.push({ c: 'thread', tid: w[b + 1] ?? 0, parent: w[b + 2] ?? 0, name: threadName(w, b) });
    else if (cls === CLASS.blob) out.push({ c: 'blob', offset: w[b + 1] ?? 0, length: w[b + 2] ?? 0 });
    else throw new RangeError(`record stream: record ${i} has class ${cls}`);
  }
  return out;
}
