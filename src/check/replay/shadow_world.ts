/**
 * The world of a C tier's run as the checkers see it (CheckedWorld): the fake backend's
 * events and the engine driver's replayed into the simulator's own ledger, a RAM table
 * and the combine check, so a use after free, a leak, a free under an open group, a stale
 * RAM read or a lost contribution is the same violation, with the same id, as in a
 * simulated run. Each method takes one record and returns the op the thread did with the
 * world's answer (the replay hands both to the checkers), or throws the violation.
 *
 * Handles are the ledger's records, as in the simulator; a backend id the stream never
 * allocated becomes a record that is already dead, so using it is the ledger's violation.
 * Ground truth only: nothing here reads the tier's state.
 */
import type { Contribution, Op, RouteInfo } from '../../ops.js';
import type { CheckedWorld } from '../checked_world.js';
import { CombineLedger, requireCpuWeights, type Provenance } from '../combine.js';
import { Ledger, type BlockRow, type SimHostArray, type SimStaging, type SimTensor } from '../ledger.js';
import { Violation } from '../violation.js';
import type { EngineEvent, TierEvent } from './records.js';

/** An op the replay hands to the checkers, with the world's answer. */
export interface Did {
  readonly op: Op;
  readonly result: unknown;
}

interface RamCopy {
  readonly id: number;
  readonly layer: number;
  readonly eid: number;
  alive: boolean;
}

const PART_NAMES = ['gate', 'up', 'down'] as const;
const WHY = [undefined, 'warmstart', 'cpu', 'stream'] as const;

/** The opaque handle types of ops.ts are the ledger's records here. */
function seal<H>(record: object): H {
  return record as unknown as H;
}
function open<T>(handle: unknown): T {
  return handle as T;
}

export interface WorldShape {
  readonly devices: number;
  readonly layers: number;
  readonly reclaims: boolean;
  readonly expectedCombines: number;
}

export class ShadowWorld implements CheckedWorld {
  readonly ledger: Ledger;
  readonly expectedCombines: number;
  leakedAtShutdown: { tensors: number; staging: number } | null = null;
  private readonly combined: CombineLedger;
  private readonly tensors = new Map<number, SimTensor>();
  private readonly staging = new Map<number, SimStaging>();
  private readonly hosts = new Map<number, SimHostArray>();
  private readonly ram = new Map<number, RamCopy>();
  private readonly rows = new Map<number, SimTensor[][]>();
  private readonly rowKeys = new Map<number, { layer: number; eid: number }[]>();
  private readonly open = new Map<number, { layer: number; eid: number; tensors: SimTensor[] }[]>();
  /** the backend's allocation ids of each trunk tensor (the replay names them by offer) */
  readonly trunkIds = new Map<number, number>();

  constructor(readonly shape: WorldShape) {
    this.ledger = new Ledger(shape.devices, 32, shape.reclaims);
    this.expectedCombines = shape.expectedCombines;
    this.combined = new CombineLedger(shape.layers);
  }

  get combines(): number {
    return this.combined.combines;
  }
  deviceBytes(t: unknown): number {
    return open<SimTensor>(t).bytes;
  }
  tensorOwner(t: unknown): SimTensor {
    return open<SimTensor>(t);
  }
  stagingOwner(s: unknown): SimStaging {
    return open<SimStaging>(s);
  }
  hostArrayKind(a: unknown): string {
    return open<SimHostArray>(a).what;
  }
  deviceHeldBytes(): number | null {
    return null;
  }

  /** The tensor of a backend id; an id never allocated is a dead record. */
  tensor(id: number, dev: number): SimTensor {
    // a handle the backend never made: dead from the start, so any use of it is a violation
    return (
      this.tensors.get(id) ?? { id, dev, layer: -1, eid: -1, part: 'gate', bytes: 0, gen: -1, alive: false, refs: 0 }
    );
  }

  stagingCopy(id: number): SimStaging | null {
    return this.staging.get(id) ?? null;
  }

  // ---- the backend ----

  host(e: TierEvent): Did {
    const what = e.part === 0 ? 'slots' : 'ring';
    if (e.value2 !== 0) {
      if (this.ledger.backendShutdown) this.ledger.newSession();
      const a = e.value2 > 0 ? this.ledger.hostAlloc(what, e.value) : null;
      if (a !== null) this.hosts.set(e.id, a);
      return { op: { k: 'hostAlloc', what, bytes: e.value }, result: a === null ? null : seal(a) };
    }
    const a = this.hosts.get(e.id) ?? { id: e.id, what, bytes: 0, alive: false };
    this.ledger.hostFree(a);
    return { op: { k: 'hostFree', array: seal(a) }, result: undefined };
  }

  stage(e: TierEvent): Did {
    const ram = this.ram.get(e.value) ?? null;
    this.checkRam(ram, e.value, e.layer, e.eid, 'staging copy');
    let s: SimStaging | null = null;
    if (e.value2 === 1 && e.id > 0) {
      s = this.ledger.stage(ram?.layer ?? e.layer, ram?.eid ?? e.eid);
      this.staging.set(e.id, s);
    }
    const op: Op = { k: 'stage', ram: seal({ id: e.value }), layer: e.layer, eid: e.eid };
    return { op, result: s === null ? null : seal(s) };
  }

  unstage(e: TierEvent): Did {
    const s = this.staging.get(e.id);
    this.ledger.unstage(s);
    return { op: { k: 'unstage', staging: seal(s ?? { id: 0 }) }, result: undefined };
  }

  upload(e: TierEvent): Did {
    if (e.part < 0) return this.uploadDense(e);
    const part = PART_NAMES[e.part] ?? 'gate';
    const s = this.staging.get(e.value);
    this.ledger.checkUploadSource(s, e.layer, e.eid);
    let t: SimTensor | null = null;
    if (e.id > 0) {
      t = this.ledger.alloc(e.dev, e.layer, e.eid, part, e.value2);
      this.tensors.set(e.id, t);
    }
    const op: Op = { k: 'upload', dev: e.dev, staging: seal(s ?? { id: 0 }), part, layer: e.layer, eid: e.eid };
    return { op, result: t === null ? null : seal(t) };
  }

  /** A trunk matrix: its offer index is its trunk id (th.h: init places offers from id 0). */
  private uploadDense(e: TierEvent): Did {
    const index = e.value;
    let t: SimTensor | null = null;
    if (e.id > 0) {
      t = this.ledger.alloc(e.dev, -1, index, 'dense', e.value2);
      this.tensors.set(e.id, t);
      this.trunkIds.set(index, e.id);
    }
    const op: Op = { k: 'uploadDense', dev: e.dev, index, weightBytes: 0, scaleBytes: 0 };
    return { op, result: t === null ? null : seal(t) };
  }

  free(e: TierEvent): Did {
    const t = this.tensor(e.id, e.dev);
    this.ledger.free(t, e.value2);
    return { op: { k: 'free', dev: e.value2, tensor: seal(t) }, result: undefined };
  }

  /** One row of a group being issued: gathered until its be_group_open. */
  groupRow(e: TierEvent): null {
    const rows = this.rows.get(e.dev) ?? [];
    const keys = this.rowKeys.get(e.dev) ?? [];
    if (e.part === 0) {
      rows.length = 0;
      keys.length = 0;
    }
    rows.push([this.tensor(e.id, e.dev), this.tensor(e.value, e.dev), this.tensor(e.value2, e.dev)]);
    keys.push({ layer: e.layer, eid: e.eid });
    this.rows.set(e.dev, rows);
    this.rowKeys.set(e.dev, keys);
    return null;
  }

  groupOpen(e: TierEvent, rowOffset: number): Did {
    const tensors = e.value > 0 ? (this.rows.get(e.dev) ?? []) : [];
    const keys = e.value > 0 ? (this.rowKeys.get(e.dev) ?? []) : [];
    const rows = keys.map((k, i) => ({ layer: k.layer, eid: k.eid, tensors: tensors[i] ?? [] }));
    if (e.value2 === 1) {
      this.ledger.openGroup(
        e.dev,
        rows.flatMap((r) => r.tensors),
        `group on device ${e.dev}`,
      );
      this.open.set(e.dev, rows);
    }
    const op: Op = {
      k: 'issueGroup',
      dev: e.dev,
      rowOffset,
      rows: rows.map((r) => ({ layer: r.layer, eid: r.eid, tensors: r.tensors.map((t) => seal(t)) })),
    };
    return { op, result: e.value2 === 1 };
  }

  groupTake(e: TierEvent): Did {
    const rows = this.open.get(e.dev) ?? [];
    this.ledger.closeGroup(e.dev);
    this.open.delete(e.dev);
    const outs = e.value2 === 1 ? rows.map((r) => seal({ layer: r.layer, eid: r.eid })) : null;
    const op: Op = {
      k: 'takeGroup',
      dev: e.dev,
      rows: rows.map((r) => ({ layer: r.layer, eid: r.eid, tensors: r.tensors.map((t) => seal(t)) })),
    };
    return { op, result: outs };
  }

  gemv(e: TierEvent): Did {
    const t = this.tensor(e.id, e.dev);
    if (!t.alive) throw new Violation('MEM-DEVICE', `dense GEMV on device ${e.dev} reads a freed trunk tensor`);
    const op: Op = {
      k: 'denseGemv',
      dev: e.dev,
      index: e.value,
      tensor: seal(t),
      inBuf: `dense_in${e.dev}`,
      outBuf: `dense_out${e.dev}`,
    };
    return { op, result: undefined };
  }

  shutdown(): Did {
    this.leakedAtShutdown = { tensors: this.ledger.liveTensors, staging: this.ledger.liveStaging };
    this.ledger.backendShutdown = true;
    return { op: { k: 'backendShutdown' }, result: undefined };
  }

  // ---- the engine ----

  /** TH_EV_RAM: the engine's current copy (why 0), one it loads (1-3), or its first (4). */
  ramEvent(e: EngineEvent): Did | null {
    const [layer = 0, eid = 0, id = 0, why = 0] = e.a;
    if (id > 0 && !this.ram.has(id)) this.ram.set(id, { id, layer, eid, alive: true });
    const ref = id > 0 ? seal(this.ram.get(id) ?? { id }) : null;
    if (why === 4) return null;
    if (why === 0) return { op: { k: 'ramOf', layer, eid }, result: ref };
    return { op: { k: 'loadRam', layer, eid, why: WHY[why] ?? 'cpu' }, result: ref };
  }

  ramFree(e: EngineEvent): Did {
    const [layer = 0, eid = 0, id = 0] = e.a;
    const r = this.ram.get(id);
    if (r !== undefined) r.alive = false;
    return { op: { k: 'freeRam', layer, eid }, result: undefined };
  }

  recycle(e: EngineEvent): Did {
    const r = this.ram.get(e.a[0] ?? 0);
    if (r !== undefined) r.alive = false;
    return { op: { k: 'recycleRam', ram: seal(r ?? { id: 0 }) }, result: undefined };
  }

  cpu(e: EngineEvent, input: BlockRow): Did {
    const [layer = 0, eid = 0, id = 0] = e.a;
    const ram = requireCpuWeights(layer, eid, id > 0 ? (this.ram.get(id) ?? null) : null);
    this.checkRam(ram, id, layer, eid, 'CPU expert');
    const op: Op = { k: 'cpuExpert', layer, eid, ram: seal(ram), input: seal(input) };
    return { op, result: seal({ token: input.token, layer: input.layer, eid }) };
  }

  combine(token: number, layer: number, routed: readonly number[], parts: readonly Contribution[]): Did {
    this.combined.record(token, layer, routed, parts, (p) => open<Provenance>(p.output));
    return { op: { k: 'combine', token, layer, parts }, result: undefined };
  }

  route(token: number, layer: number, eids: readonly number[]): Did {
    const input: BlockRow = { token, layer };
    const info: RouteInfo = { token, layer, eids, input: seal(input) };
    return { op: { k: 'route', token, layer }, result: info };
  }

  private checkRam(ram: RamCopy | null, id: number, layer: number, eid: number, what: string): void {
    if (ram === null) throw new Violation('MEM-RAM', `${what} of L${layer}E${eid}: RAM copy ${id} never existed`);
    if (!ram.alive)
      throw new Violation(
        'MEM-RAM',
        `${what} of L${layer}E${eid}: RAM copy ${id} was freed or recycled before this read`,
      );
    if (ram.layer !== layer || ram.eid !== eid)
      throw new Violation('MEM-RAM', `${what} of L${layer}E${eid}: RAM copy ${id} holds L${ram.layer}E${ram.eid}`);
  }
}
