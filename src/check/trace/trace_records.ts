/**
 * A free run's log as the records of the scheduled replay (src/check/replay/records.ts),
 * so the reference and the standard checkers can judge it as they judge a run under
 * tierlab's scheduler. The log has the tier's, the gate's, the trunk's and the backend's
 * events; what the scheduler's trace and the engine driver gave there is synthesized from
 * them, in the order the trace check consumed the log:
 *  - mx: a thread's first event of a section is preceded by its `lock` (a `relock` after
 *    a `wait`, with a `spurious` wakeup first where no signal woke it: trace_sync.ts); an
 *    `unlock` event is followed by the unlock, a `wait` by the wait on cv or cv_take, a
 *    `wake` by the signal (to the thread it woke) or the broadcast;
 *  - gmx: every gate event is one section of gmx (tt_gate.c emits one a section), locked
 *    before and unlocked as late as the log allows (releaseGate); `gate_wait` waits on gcv instead and the thread's next gate
 *    event relocks; a state change, and the last caller out while an exclusive section
 *    waits, broadcast gcv; a shutdown that lost to a teardown waits on gcv until that
 *    teardown's change to DEAD, then relocks and leaves;
 *  - threads: the uploader is created just before its first event (trace_sync.ts), exits after its last
 *    unlock, is joined at `joined`; mx is destroyed before the teardown shuts the backend
 *    down;
 *  - the engine's boundary: each `call`/`ret` event gets the engine's call and return
 *    records, issue's route rebuilt from its `routed` events, issue's and take's masks from
 *    the groups built, failed and collected, plan_fill's keys from its `planned` events.
 *
 * The heat file's bytes are not in the log: a read before any write reads the file given
 * (none given: the records stop there, `cut`); a write, and a read after it, carry
 * UNLOGGED bytes, which the refinement takes as the reference's own (observed_io.ts): the
 * file is then judged by the heats the tier loads from it. evicted_take's keys are not in
 * the log either: its return is left out (the reference's steps inside it are still taken).
 *
 * Invariant: the same order gives the same records; every record of an event keeps the
 * event's fields; `rows` maps each record to its log row (-1: synthesized).
 */
import type { EngineKind, Role, SchedOp } from '../replay/schema.js';
import { EVENT_KINDS, FN_NAMES, LOCKS, SOURCES } from '../replay/schema.js';
import { UNLOGGED, type Rec, type TierEvent } from '../replay/records.js';
import { NUM_FIELDS, type TraceColumns } from './trace_columns.js';
import { boundaryFacts, type BoundaryFacts } from './trace_boundary.js';
import { syncFacts, type SyncFacts } from './trace_sync.js';

export interface LogRecords {
  readonly records: Rec[];
  /** per record: the log row it stands for (-1: a record synthesized for it) */
  readonly rows: number[];
  /** the heat file's bytes, where a blob record points */
  readonly blob: Uint8Array;
  /** the first event the records could not carry, and why (null: the whole log) */
  readonly cut: { readonly row: number; readonly why: string } | null;
}

/** the engine event `ram` with this reason registers a RAM copy and is no op (shadow_world.ts) */
const RAM_KNOWN = 4;
/** init's last stage (EVENTS.md, init_stage) */
const STAGE_UPLOADER = 7;
const OBJ: Record<Exclude<Role, 'other' | 'tmx'>, number> = { mx: 1, cv: 2, cv_take: 3, gmx: 4, gcv: 5 };
const COL = Object.fromEntries(NUM_FIELDS.map((f, i) => [f, i])) as Record<(typeof NUM_FIELDS)[number], number>;

/** The log's row `r` as the replay's event record. */
function tierEvent(cols: TraceColumns, r: number): TierEvent {
  const n = (f: (typeof NUM_FIELDS)[number]): number => cols.num[COL[f]]?.[r] ?? 0;
  const fn = cols.fn[r] ?? FN_NAMES.length;
  return {
    c: 'event',
    src: SOURCES[cols.src[r] ?? 0] ?? 'tier',
    ev: EVENT_KINDS[cols.ev[r] ?? 0] ?? 'call',
    lk: cols.lk[r] ?? 0,
    tid: n('tid'),
    fn: fn < FN_NAMES.length ? fn : 0,
    layer: n('layer'),
    eid: n('eid'),
    dev: n('dev'),
    part: n('part'),
    vlayer: n('vlayer'),
    veid: n('veid'),
    value: n('value'),
    value2: n('value2'),
    inflight: n('inflight'),
    qn: n('qn'),
    waiters: n('waiters'),
    tick: n('tick'),
    used: n('used'),
    budget: n('budget'),
    heat: n('heat'),
    flags: n('flags'),
    vflags: n('vflags'),
    id: n('id'),
    sec: n('sec'),
    life: n('life'),
    live: n('live'),
    wantX: n('want_x'),
    x: n('x'),
  };
}

class Emitter {
  readonly records: Rec[] = [];
  readonly rows: number[] = [];
  sched(tid: number, op: SchedOp, role: keyof typeof OBJ | null, arg = 0): void {
    this.records.push({ c: 'sched', step: this.records.length, tid, op, obj: role === null ? 0 : OBJ[role], arg });
    this.rows.push(-1);
  }
  engine(tid: number, kind: EngineKind, a: readonly number[]): void {
    this.records.push({ c: 'engine', kind, tid, a });
    this.rows.push(-1);
  }
  event(e: TierEvent, row: number): void {
    this.records.push(e);
    this.rows.push(row);
  }
}

/** Per-thread state of the synthesis: mx held, asleep on a variable, the uploader's generation. */
interface Threads {
  mxHolder: number;
  /** threads whose last release of mx was a wait */
  readonly mxWaiting: Set<number>;
  /** threads asleep on gcv: a queued exclusive section (x) or a losing shutdown (teardown) */
  readonly gcv: Map<number, 'x' | 'teardown'>;
  /** the thread holding gmx after its gate event, until its release (releaseGate) */
  gmx: { readonly tid: number; readonly broadcast: boolean; readonly teardownDone: boolean } | null;
  /** the thread of the last init stage (the init that creates the uploader) */
  initThread: number;
  /** the uploader of the generation, and whether it left (uploader_exit) */
  uploader: number;
  uploaderLeft: boolean;
  /** the thread whose teardown has released the tables (released), until mx is destroyed */
  tearing: number;
  /** the init whose uploader did not start: it destroys mx before it leaves the gate */
  unstarted: number;
}

export interface LogRecordOptions {
  /** the heat file on disk before the run's first init (null: none, or not known) */
  readonly heat: Uint8Array | null;
}

export function recordsFromLog(cols: TraceColumns, order: Int32Array, o: LogRecordOptions): LogRecords {
  const facts = syncFacts(cols, order);
  const bounds = boundaryFacts(cols, order);
  const out = new Emitter();
  const th: Threads = {
    mxHolder: -1,
    mxWaiting: new Set(),
    gcv: new Map(),
    gmx: null,
    initThread: -1,
    uploader: -1,
    uploaderLeft: false,
    tearing: -1,
    unstarted: -1,
  };
  let heatWritten = false;
  let cut: LogRecords['cut'] = null;
  for (let i = 0; i < order.length && cut === null; i++) {
    const r = order[i] ?? -1;
    if (r < 0) continue;
    const e = tierEvent(cols, r);
    if (e.ev === 'heat_loaded' && e.value !== 0 && !heatWritten && o.heat === null) {
      cut = { row: r, why: 'the tier read a heat file here: the log does not carry its bytes (give the file)' };
      break;
    }
    before(out, th, e, i, facts, bounds);
    out.event(e, r);
    // the file's bytes: those given (no write before), else what the reference wrote (UNLOGGED)
    if (e.ev === 'heat_saved' || (e.ev === 'heat_loaded' && e.value !== 0)) {
      const given = e.ev === 'heat_loaded' && !heatWritten;
      out.records.push({ c: 'blob', offset: 0, length: given ? (o.heat?.length ?? 0) : UNLOGGED });
      out.rows.push(-1);
    }
    if (e.ev === 'heat_saved') heatWritten = true;
    after(out, th, e, i, facts, bounds);
  }
  releaseGate(out, th);
  for (const role of Object.keys(OBJ) as (keyof typeof OBJ)[]) {
    out.records.push({ c: 'object', id: OBJ[role], role });
    out.rows.push(-1);
  }
  return { records: out.records, rows: out.rows, blob: o.heat ?? new Uint8Array(0), cut };
}

/** The records that come before an event: locks taken, the engine's call. */
function before(out: Emitter, th: Threads, e: TierEvent, i: number, f: SyncFacts, b: BoundaryFacts): void {
  if (th.gmx !== null && (th.gmx.tid === e.tid || e.src === 'gate')) releaseGate(out, th);
  const made = f.created.get(i);
  if (made !== undefined) {
    out.sched(th.initThread, 'create', null, made);
    th.uploader = made;
    th.uploaderLeft = false;
  }
  if (e.ev === 'init_stage') th.initThread = e.tid;
  if (e.src === 'tier' && e.ev === 'call') {
    for (const a of b.routes.get(i) ?? []) out.engine(e.tid, a.kind, a.a);
    out.engine(e.tid, 'call', [e.fn, e.layer, e.eid, e.value, 0, 0, 0]);
  }
  // the engine's RAM copy a staging copy reads: its own table, which the log does not hold
  if (e.ev === 'be_stage' && e.value > 0) out.engine(e.tid, 'ram', [e.layer, e.eid, e.value, RAM_KNOWN]);
  if (e.src === 'gate' && th.unstarted === e.tid) {
    out.sched(e.tid, 'destroy', 'mx');
    th.unstarted = -1;
  }
  if (e.src === 'gate') out.sched(e.tid, th.gcv.get(e.tid) === 'x' ? 'relock' : 'lock', 'gmx');
  if (e.src === 'gate') th.gcv.delete(e.tid);
  if (e.src === 'tier' && e.ev === 'joined') out.sched(e.tid, 'join', null, th.uploader);
  if (th.tearing === e.tid && isBackendDown(e)) {
    out.sched(e.tid, 'destroy', 'mx');
    th.tearing = -1;
  }
  if (e.src !== 'tier' || LOCKS[e.lk] !== 'mx' || th.mxHolder === e.tid) return;
  if (th.mxWaiting.delete(e.tid)) {
    if (f.spurious.has(i)) out.sched(e.tid, 'spurious', null);
    out.sched(e.tid, 'relock', 'mx');
  } else out.sched(e.tid, 'lock', 'mx');
  th.mxHolder = e.tid;
}

/** The backend shut down, or the teardown done: mx was destroyed just before. */
function isBackendDown(e: TierEvent): boolean {
  return e.ev === 'be_shutdown' || (e.ev === 'be_call' && e.value === 13) || e.ev === 'teardown_done';
}

/** The records that follow an event: locks released, waits, wakeups, threads, the engine's return. */
function after(out: Emitter, th: Threads, e: TierEvent, i: number, f: SyncFacts, b: BoundaryFacts): void {
  if (e.src === 'gate') gateAfter(out, th, e);
  if (e.src !== 'tier') return;
  if (e.ev === 'ret') {
    const ret = b.rets.get(i);
    for (const a of ret ?? []) out.engine(e.tid, a.kind, a.a);
    return;
  }
  if (e.ev === 'uploader_exit') th.uploaderLeft = true;
  if (e.ev === 'released') th.tearing = e.tid;
  if (e.ev === 'init_stage' && e.value === STAGE_UPLOADER && e.value2 === 0) th.unstarted = e.tid;
  if (e.ev === 'wake') {
    const cv = e.value === 0 ? 'cv' : 'cv_take';
    if (e.value2 === 0) out.sched(e.tid, 'signal', cv, f.signalled.get(i) ?? -1);
    else out.sched(e.tid, 'broadcast', cv);
  } else if (e.ev === 'wait') {
    out.sched(e.tid, 'wait', e.value === 0 ? 'cv' : 'cv_take');
    th.mxWaiting.add(e.tid);
    th.mxHolder = -1;
  } else if (e.ev === 'unlock') {
    out.sched(e.tid, 'unlock', 'mx');
    th.mxHolder = -1;
    if (e.tid === th.uploader && th.uploaderLeft) out.sched(e.tid, 'exit', null);
  }
}

/** TT_GATE_REFUSE_TEARDOWN (tt_gate.c): a shutdown that lost to a teardown under way */
const REFUSE_TEARDOWN = 4;
const LIFE_LIVE = 1;
const LIFE_TEARING_DOWN = 2;

function gateAfter(out: Emitter, th: Threads, e: TierEvent): void {
  if (e.ev === 'gate_wait') {
    out.sched(e.tid, 'wait', 'gcv');
    th.gcv.set(e.tid, 'x');
    return;
  }
  if (e.ev === 'gate_refuse' && e.value === REFUSE_TEARDOWN) {
    out.sched(e.tid, 'wait', 'gcv');
    th.gcv.set(e.tid, 'teardown');
    return;
  }
  // every change of state but a teardown's beginning (LIVE to TEARING_DOWN) ends an exclusive section
  const began = e.ev === 'gate_state' && e.value === LIFE_LIVE && e.value2 === LIFE_TEARING_DOWN;
  const broadcast = (e.ev === 'gate_state' && !began) || (e.ev === 'gate_leave' && e.live === 0 && e.wantX > 0);
  th.gmx = { tid: e.tid, broadcast, teardownDone: e.ev === 'gate_state' && e.value2 === 0 };
}

/**
 * The release of gmx after a gate event, as late as the log allows: before the thread's
 * next event or another thread's gate event (gmx and mx are two locks: other threads'
 * sections of mx may run while it holds gmx, and the gate's half of the state is compared
 * at this release).
 */
function releaseGate(out: Emitter, th: Threads): void {
  const g = th.gmx;
  if (g === null) return;
  th.gmx = null;
  if (g.broadcast) out.sched(g.tid, 'broadcast', 'gcv');
  out.sched(g.tid, 'unlock', 'gmx');
  if (!g.teardownDone) return;
  // the teardown is done: the shutdowns that lost to it take gmx back and leave
  for (const [tid, why] of [...th.gcv]) {
    if (why !== 'teardown') continue;
    th.gcv.delete(tid);
    out.sched(tid, 'relock', 'gmx');
    out.sched(tid, 'unlock', 'gmx');
  }
}
