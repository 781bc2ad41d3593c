/**
 * The event-to-reference replay: a C tier's run, read from its record stream, judged by
 * tierlab's own checkers as they judge a simulated run (the same callbacks at the same
 * moments, so the same property ids): every release of mx is a quiescent point, every
 * release of the gate's gmx that carried a gate event a step of the gate (gateRelease),
 * every call and return at the tier's boundary a mark, every backend and engine action an
 * op with the world's answer.
 *
 * Two levels. At level 1 the tier logged nothing: the boundary (calls and returns), the
 * backend's ledger and the scheduler's trace are the whole record, and the checkers are
 * those that need nothing else (boundary.ts). At level 2 the tier's own events also keep
 * a shadow of its state (shadow_tier.ts), and the standard checkers run, the refinement
 * against the reference among them.
 *
 * Runs without a scheduler (a free run's log, `check-trace --reference`): the replay takes
 * records in one order and `feed`s them one at a time. Under the scheduler that order is
 * exact. A free run's log orders only the events under a lock: the trace check's rules
 * and their bounded placement search fix an order for the rest (each event on its thread,
 * after its `after` event), and src/check/trace/trace_records.ts rebuilds from it the
 * records the scheduler and the engine driver give here.
 */
import type { CvName, Op } from '../../ops.js';
import type { TierConfig } from '../../tier/config.js';
import type { Checker } from '../checker.js';
import { Violation } from '../violation.js';
import { EngineReader } from './replay_engine.js';
import { planReplay, type ReplayPlan } from './replay_plan.js';
import { ReplayThreads, type ReplayThread } from './replay_threads.js';
import { UNLOGGED, type Blob, type EngineEvent, type Rec, type SchedEvent, type TierEvent } from './records.js';
import { UNLOGGED_HEAT } from '../refinement/observed_io.js';
import { BACKEND_OP } from './schema.js';
import { ShadowTier } from './shadow_tier.js';
import { ShadowWorld, type Did, type WorldShape } from './shadow_world.js';

export interface ReplayInput {
  readonly records: readonly Rec[];
  /** the heat file's bytes the blob records point into */
  readonly blob: Uint8Array;
  readonly level: 1 | 2;
  readonly cfg: TierConfig;
  readonly world: WorldShape;
}

/** Builds the checkers of a replay (the shadow state is null at level 1); callOf names the
 *  call record a thread is in now. */
export type CheckerFactory = (
  shadow: ShadowTier | null,
  world: ShadowWorld,
  plan: ReplayPlan,
  callOf: (tid: number) => number,
) => Checker[];

/** init's last stage (EVENTS.md, init_stage): the uploader thread */
const INIT_STAGE_UPLOADER = 7;

export class Replay {
  readonly plan: ReplayPlan;
  readonly world: ShadowWorld;
  readonly shadow: ShadowTier | null;
  readonly threads: ReplayThreads;
  private readonly engine: EngineReader;
  private readonly checkers: Checker[];
  /** per device: the input row the last write_input started at (issueGroup's offset) */
  private readonly rowOffset = new Map<number, number>();
  private readonly openCall = new Map<number, number>();
  /** per thread: its last call's record index */
  private readonly lastCall = new Map<number, number>();
  /** threads whose section of gmx is a step of the gate (replay's gateRelease) */
  private readonly gateSteps = new Set<number>();
  /** per thread: the last gate event of its section of gmx, applied at the release */
  private readonly gateAfter = new Map<number, TierEvent>();
  /** records fed so far */
  at = 0;

  constructor(
    private readonly input: ReplayInput,
    factory: CheckerFactory,
  ) {
    this.plan = planReplay(input.records);
    this.world = new ShadowWorld(input.world);
    this.shadow = input.level === 2 ? new ShadowTier(input.cfg) : null;
    this.threads = new ReplayThreads(this.plan.names);
    this.engine = new EngineReader(this.world, input.records);
    this.checkers = factory(this.shadow, this.world, this.plan, (tid) => this.callOf(tid));
    this.threads.get(0);
  }

  /** Feeds every record; throws the first Violation a checker or the world finds. */
  run(): void {
    const recs = this.input.records;
    while (this.at < recs.length) {
      const r = recs[this.at];
      if (r !== undefined) this.feed(r, this.at);
      this.at++;
    }
  }

  /** Every thread finished: the end-of-run checks. */
  atEnd(): void {
    for (const c of this.checkers) c.atEnd?.(this.threads);
  }

  private feed(r: Rec, i: number): void {
    if (r.c === 'sched') this.sched(r, i);
    else if (r.c === 'engine') this.emitEngine(r, i);
    else if (r.c === 'event') this.event(r, i);
  }

  private th(tid: number): ReplayThread {
    return this.threads.get(tid);
  }

  private op(tid: number, d: Did | null): void {
    if (d === null) return;
    const th = this.th(tid);
    for (const c of this.checkers) c.onOp?.(this.threads, th, d.op, d.result);
  }

  private quiescent(th: ReplayThread, cv: CvName | null): void {
    for (const c of this.checkers) c.onQuiescent?.(this.threads, th, cv);
  }

  private sched(r: SchedEvent, i: number): void {
    const role = this.plan.roles.get(r.obj) ?? 'other';
    const th = this.th(r.tid);
    if (r.op === 'create') {
      this.created(r, i);
      return;
    }
    if (r.op === 'join') this.op(r.tid, { op: { k: 'join', tid: r.arg }, result: undefined });
    // the tier's mutex destroyed last of its three sync objects: they are gone
    if (r.op === 'destroy' && role === 'mx') this.op(r.tid, { op: { k: 'syncDestroy' }, result: undefined });
    if ((r.op === 'signal' || r.op === 'broadcast') && (role === 'cv' || role === 'cv_take' || role === 'gcv'))
      this.op(r.tid, { op: { k: r.op, cv: role }, result: undefined });
    const s = this.threads.sync(r, role);
    if (s.release) this.quiescent(th, s.cv);
    if (s.gate === 'relock') this.gateSteps.add(r.tid);
    else if (s.gate !== null) this.gateRelease(th, s.gate === 'wait');
  }

  /**
   * A release of gmx. It is a step of the gate when its section carried a gate event or
   * continued one after a wait on gcv; the gate's half of the shadow then takes the gate
   * that event reported (applied here, at the release, so that no other thread's
   * comparison sees a section half done). A section of gmx without a gate event is the C
   * tier's own bookkeeping under gmx (open groups, trunk counts, a read of the state),
   * which the protocol keeps elsewhere: no step of the gate.
   */
  private gateRelease(th: ReplayThread, waited: boolean): void {
    if (!this.gateSteps.delete(th.tid)) return;
    const e = this.gateAfter.get(th.tid);
    this.gateAfter.delete(th.tid);
    if (e !== undefined) this.shadow?.gateFrom(e);
    for (const c of this.checkers) c.onGateRelease?.(this.threads, th, waited);
  }

  /** A thread starts: the uploader (from an init) joins the checks as the tier's spawn. */
  private created(r: SchedEvent, i: number): void {
    // the init that starts its uploader returns there, for the checks (replay_plan.ts)
    const child = this.th(r.arg);
    const initCall = this.plan.initSpawns.get(i);
    const name = initCall !== undefined ? 'uploader' : child.name;
    if (initCall !== undefined) this.shadow?.started(r.arg);
    const body = function* (): Generator<Op, void, unknown> {};
    this.op(r.tid, { op: { k: 'spawn', name, body }, result: r.arg });
    if (initCall !== undefined) this.initTables(r.tid);
  }

  /**
   * init's tables are in place once it started its uploader (or failed to): the
   * reference builds them in one section of mx, the C tier inside its exclusive section
   * without mx (nobody else may look). That point stands for the reference's release.
   */
  private initTables(tid: number): void {
    this.quiescent(this.th(tid), null);
  }

  private emitEngine(r: EngineEvent, i: number): void {
    if (r.kind === 'call') this.openCall.set(r.tid, i);
    if (r.kind === 'call') this.lastCall.set(r.tid, i);
    if (r.kind === 'ret') this.openCall.delete(r.tid);
    // a count the gate refused (the teardown had begun) is no report of residency
    if (r.kind === 'mark' && r.a[0] === 1 && this.plan.calls.get(this.lastCall.get(r.tid) ?? -1)?.refused === true)
      return;
    const action = this.engine.read(r, i);
    if (action === null) return;
    if ('did' in action) {
      this.op(r.tid, action.did);
      return;
    }
    const th = this.th(r.tid);
    for (const c of this.checkers) c.onMark?.(this.threads, th, action.mark);
  }

  /** The call a thread is in now (its call record's index), or -1. */
  callOf(tid: number): number {
    return this.openCall.get(tid) ?? -1;
  }

  private event(e: TierEvent, i: number): void {
    if (e.src === 'backend') {
      this.op(e.tid, this.backend(e));
      return;
    }
    if (e.src === 'gate') {
      this.gateAfter.set(e.tid, e);
      this.gateSteps.add(e.tid);
      return;
    }
    if (e.src === 'trunk') {
      if (e.ev === 'trunk_placed') {
        const id = this.world.trunkIds.get(e.value);
        if (id !== undefined) this.shadow?.placeTrunk(e.value, e.dev, this.world.tensor(id, e.dev) as never);
      }
      return;
    }
    if (e.src !== 'tier' || this.shadow === null) return;
    const mark = this.shadow.apply(e, e.tid);
    this.tierOp(e, i);
    // init could not start its uploader: its tables are off (initTables)
    if (e.ev === 'init_stage' && e.value === INIT_STAGE_UPLOADER && e.value2 === 0) this.initTables(e.tid);
    if (mark !== null) {
      const th = this.th(e.tid);
      for (const c of this.checkers) c.onMark?.(this.threads, th, { k: 'mark', what: mark.what, detail: mark.detail });
    }
  }

  /** The ops a tier event stands for: an input row written, the heat file read or written. */
  private tierOp(e: TierEvent, i: number): void {
    if (e.ev === 'write_input') {
      this.rowOffset.set(e.dev, e.value);
      const op: Op = {
        k: 'writeInput',
        dev: e.dev,
        rowOffset: e.value,
        rows: e.value2,
        input: this.engine.input(e.tid) as never,
      };
      this.world.ledger.writeInput(e.dev, e.value, e.value2, this.engine.input(e.tid));
      this.op(e.tid, { op, result: undefined });
    } else if (e.ev === 'heat_loaded') {
      this.op(e.tid, { op: { k: 'readHeat' }, result: this.blobAfter(i) });
    } else if (e.ev === 'heat_saved') {
      this.op(e.tid, { op: { k: 'writeHeat', bytes: this.blobAfter(i) ?? new Uint8Array(0) }, result: undefined });
    }
  }

  private blobAfter(i: number): Uint8Array | null {
    const b = this.input.records[i + 1] as Blob | undefined;
    if (b !== undefined && b.c === 'blob' && b.length === UNLOGGED) return UNLOGGED_HEAT;
    if (b === undefined || b.c !== 'blob' || b.length < 0) return null;
    return this.input.blob.subarray(b.offset, b.offset + b.length);
  }

  /** The op a backend event stands for, with the world's answer (null: none). */
  private backend(e: TierEvent): Did | null {
    const w = this.world;
    switch (e.ev) {
      case 'be_host':
        return w.host(e);
      case 'be_stage': {
        const d = w.stage(e);
        if (d.result !== null) this.shadow?.stagedBy(e.tid, d.result as never);
        return d;
      }
      case 'be_unstage':
        return w.unstage(e);
      case 'be_upload': {
        const d = w.upload(e);
        if (d.result !== null && e.part >= 0) this.shadow?.uploaded(e.layer, e.eid, e.part, d.result as never);
        return d;
      }
      case 'be_free':
        return w.free(e);
      case 'be_group_row':
        return w.groupRow(e);
      case 'be_group_open':
        return w.groupOpen(e, this.rowOffset.get(e.dev) ?? e.dev * 32);
      case 'be_group_take':
        return w.groupTake(e);
      case 'be_gemv':
        return w.gemv(e);
      case 'be_shutdown':
        return w.shutdown();
      case 'be_call':
        return this.call(e);
      default:
        return null;
    }
  }

  /** Memory queries and the operating system's steps of init, through the backend. */
  private call(e: TierEvent): Did | null {
    if (e.value === BACKEND_OP.memInfo) {
      const free = e.value2 < 0 ? null : { free: e.value2, total: 0 };
      return { op: { k: 'memInfo', dev: e.dev }, result: free };
    }
    if (e.value === BACKEND_OP.syncInit) return { op: { k: 'syncInit' }, result: e.value2 === 0 };
    if (e.value !== BACKEND_OP.threadStart || e.value2 === 0) return null;
    const body = function* (): Generator<Op, void, unknown> {};
    return { op: { k: 'spawn', name: 'uploader', body }, result: -1 };
  }
}

/** A violation, or rethrows what is not one (an internal error). */
export function asViolation(e: unknown): Violation {
  if (e instanceof Violation) return e;
  throw e;
}
