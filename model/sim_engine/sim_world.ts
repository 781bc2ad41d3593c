/**
 * The simulated world: answers every backend and engine op a thread yields, over the
 * ledger (device memory, staging, buffers), the RAM pool and the fault plan.
 *
 * Values handed to the tier are the ledger's own records (a tensor handle is its
 * SimTensor, a staging copy its SimStaging): `open` and `seal` are the one place the
 * opaque handle types are converted, so the checks need no lookup tables. An expert's
 * output records which token, layer and expert really produced it, so a lost, doubled,
 * stale or misrouted contribution is caught where it is combined.
 *
 * The handlers are a map the compiler checks for completeness: every op a world must
 * answer (WorldOpKind) has exactly one handler with the result type of OpResults.
 */
import {
  EXPERT_PARTS,
  type BackendOp,
  type EngineOp,
  type GroupRow,
  type Op,
  type OpOf,
  type OpResults,
  type HostArray,
  type RouteInfo,
  type StagingCopy,
  type TensorHandle,
  type WorldOpKind,
} from '../../src/ops.js';
import { deviceFootprint } from '../../src/check/allocator.js';
import type { CheckedWorld } from '../../src/check/checked_world.js';
import { CombineLedger, requireCpuWeights } from '../../src/check/combine.js';
import { requireTableRoom } from '../../src/check/host_room.js';
import {
  describeTensor,
  Ledger,
  type BlockRow,
  type SimHostArray,
  type SimStaging,
  type SimTensor,
} from '../../src/check/ledger.js';
import { writeHeatFile as encodeHeat } from '../../src/protocol_ref/heat_file.js';
import { Violation } from '../../src/check/violation.js';
import { RamPool, type SimRamRef } from '../ram/ram.js';
import type { SimWorld } from '../rt/world.js';
import type { HeatFileDefect, Scenario } from '../scenario/scenario.js';
import { FaultInjector } from './faults.js';

export interface SimOutput {
  readonly token: number;
  readonly layer: number;
  readonly eid: number;
  readonly via: 'gpu' | 'cpu';
}

type Handlers = { readonly [K in WorldOpKind]: (w: SimulatedWorld, op: OpOf<K>) => OpResults[K] };

/** The simulated world's handles are its own records: opening one is a plain view change. */
function open<T>(handle: unknown): T {
  return handle as T;
}
function seal<H>(record: object): H {
  return record as unknown as H;
}

export class SimulatedWorld implements SimWorld, CheckedWorld {
  readonly ledger: Ledger;
  readonly ram: RamPool;
  /** ground truth: what one expert really takes on a device */
  readonly expertFootprint: number;
  readonly capacity: number[];
  readonly partFootprint: number[];
  readonly combined: CombineLedger;
  /** the heat file on disk: the scenario's (damaged as it says), then what shutdown wrote */
  heatFileBytes: Uint8Array | null;
  /** what the last shutdown wrote (null: nothing yet) */
  savedHeat: Uint8Array | null = null;
  /** tensors and staging copies still alive when the backend was shut down */
  leakedAtShutdown: { tensors: number; staging: number } | null = null;
  readonly faults: FaultInjector;
  /** per device: outputs of the group in flight */
  private readonly pending: (SimOutput[] | null)[];
  /** the backend's trunk tensors by device, offer and size (uploadDense) */
  private readonly shapeCache = new Map<string, SimTensor>();
  /** prefer-resident routing: the route the engine chose per token and layer (routeChoose) */
  private readonly chosen = new Map<number, readonly number[]>();

  constructor(
    readonly scenario: Scenario,
    readonly rowsPerDevice: number,
  ) {
    const s = scenario;
    this.ledger = new Ledger(s.devices, rowsPerDevice, s.reclaims);
    this.ram = new RamPool(s.experts);
    this.combined = new CombineLedger(s.layers);
    this.partFootprint = s.weightBytes.map((wb, i) => deviceFootprint(wb) + deviceFootprint(s.scaleBytes[i] ?? 0));
    this.expertFootprint = this.partFootprint.reduce((a, b) => a + b, 0);
    const plenty = (s.layers * s.experts + 8) * this.expertFootprint + DENSE_ROOM;
    this.capacity = s.capacityExperts.map((c) => (c === null ? plenty : c * this.expertFootprint));
    this.faults = new FaultInjector(s.faults);
    this.heatFileBytes = s.heatFile === null ? null : heatFileOnDisk(s.heatFile, s.experts, s.heatFileDefect);
    this.pending = new Array<SimOutput[] | null>(s.devices).fill(null);
    if (!s.streaming) {
      const none = new Set(s.noRam.map((k) => k.layer * s.experts + k.eid));
      for (let layer = 0; layer < s.layers; layer++) {
        for (let eid = 0; eid < s.experts; eid++) if (!none.has(layer * s.experts + eid)) this.ram.load(layer, eid);
      }
    }
  }

  get combines(): number {
    return this.combined.combines;
  }

  deviceBytes(tensor: TensorHandle): number {
    return open<SimTensor>(tensor).bytes;
  }

  tensorOwner(tensor: TensorHandle): SimTensor {
    return open<SimTensor>(tensor);
  }

  stagingOwner(staging: StagingCopy): SimStaging {
    return open<SimStaging>(staging);
  }

  hostArrayKind(array: HostArray): string {
    return open<SimHostArray>(array).what;
  }

  /** the ledger is the simulator's device: no second count */
  deviceHeldBytes(): number | null {
    return null;
  }

  get expectedCombines(): number {
    return this.scenario.runs * this.scenario.routes.length * this.scenario.layers;
  }

  syncUse(who: string, what: string): void {
    this.ledger.sync.use(who, what);
  }

  /** The runtime asks before it starts a thread: the fault plan may refuse the uploader. */
  spawnFails(name: string): boolean {
    return name === 'uploader' && this.faults.fails('spawn');
  }

  exec(op: Op): unknown {
    const handler = SimulatedWorld.handlers[op.k as WorldOpKind] as
      | ((w: SimulatedWorld, op: Op) => unknown)
      | undefined;
    if (handler === undefined) throw new Error(`internal error: the simulated world has no op '${op.k}'`);
    return handler(this, op);
  }

  /** The handlers, made once for every world (each takes its world): a run makes no closures for them. */
  private static readonly handlers: Handlers = {
    ...SimulatedWorld.backendHandlers(),
    ...SimulatedWorld.engineHandlers(),
  };

  /** The backend's ops: device memory, staging, groups, the heat file. */
  private static backendHandlers(): Pick<Handlers, BackendOp['k']> {
    return {
      hostAlloc: (w, op) => {
        // an init after a shutdown: the engine brought its backend up again, a new arena
        if (w.ledger.backendShutdown) w.ledger.newSession();
        requireTableRoom(w.scenario, op.what, op.bytes);
        return w.faults.fails('alloc') ? null : seal(w.ledger.hostAlloc(op.what, op.bytes));
      },
      hostFree: (w, op) => w.ledger.hostFree(open<SimHostArray>(op.array)),
      syncInit: (w) => {
        if (w.faults.fails('sync')) return false;
        w.ledger.sync.created();
        return true;
      },
      syncDestroy: (w) => w.ledger.sync.destroyed(null),
      memInfo: (w, op) => {
        const total = w.capacity[op.dev] ?? 0;
        return { free: total - (w.ledger.consumed[op.dev] ?? 0), total };
      },
      stage: (w, op) => {
        w.checkRam(open<SimRamRef>(op.ram), op.layer, op.eid, 'staging copy');
        if (w.faults.fails('stage')) return null;
        return seal(w.ledger.stage(op.layer, op.eid));
      },
      unstage: (w, op) => w.ledger.unstage(open<SimStaging>(op.staging)),
      upload: (w, op) => {
        w.ledger.checkUploadSource(open<SimStaging>(op.staging), op.layer, op.eid);
        if (w.faults.fails('upload')) return null;
        const bytes = w.partFootprint[EXPERT_PARTS.indexOf(op.part)] ?? 0;
        if ((w.ledger.consumed[op.dev] ?? 0) + bytes > (w.capacity[op.dev] ?? 0)) {
          w.ledger.oomFailures++;
          return null;
        }
        return seal(w.ledger.alloc(op.dev, op.layer, op.eid, op.part, bytes));
      },
      uploadDense: (w, op) => w.uploadDense(op),
      free: (w, op) => w.ledger.free(open<SimTensor>(op.tensor), op.dev),
      writeInput: (w, op) => w.ledger.writeInput(op.dev, op.rowOffset, op.rows, open<BlockRow>(op.input)),
      issueGroup: (w, op) => w.issueGroup(op.dev, op.rowOffset, op.rows),
      takeGroup: (w, op) => w.takeGroup(op.dev),
      denseGemv: (w, op) => {
        const t = open<SimTensor>(op.tensor);
        if (!t.alive)
          throw new Violation('MEM-DEVICE', `dense GEMV on device ${op.dev} reads freed tensor ${describeTensor(t)}`);
        w.ledger.checkGeneration(t, `dense GEMV on device ${op.dev}`);
        w.ledger.claim(op.inBuf, `dense GEMV on device ${op.dev}`);
        w.ledger.claim(op.outBuf, `dense GEMV on device ${op.dev}`);
        w.ledger.release(op.inBuf);
        w.ledger.release(op.outBuf);
      },
      readHeat: (w) => w.heatFileBytes,
      writeHeat: (w, op) => {
        w.savedHeat = op.bytes;
        w.heatFileBytes = op.bytes;
      },
      backendShutdown: (w) => {
        w.leakedAtShutdown = { tensors: w.ledger.liveTensors, staging: w.ledger.liveStaging };
        w.ledger.backendShutdown = true;
      },
    };
  }

  /** The engine's ops: routing, the RAM copies, CPU experts, combining. */
  private static engineHandlers(): Pick<Handlers, EngineOp['k']> {
    return {
      route: (w, op) => w.route(op.token, op.layer),
      routeChoose: (w, op) => w.routeChoose(op.token, op.layer, op.eids),
      ramOf: (w, op) => {
        const ref = w.ram.current(op.layer, op.eid);
        return ref === null ? null : seal(ref);
      },
      loadRam: (w, op) => {
        if (op.why === 'warmstart' && w.faults.fails('load')) return null;
        return seal(w.ram.load(op.layer, op.eid));
      },
      freeRam: (w, op) => {
        const ref = w.ram.current(op.layer, op.eid);
        if (ref !== null) w.ram.release(ref);
      },
      recycleRam: (w, op) => w.ram.release(open<SimRamRef>(op.ram)),
      cpuExpert: (w, op) => {
        const ram = requireCpuWeights(op.layer, op.eid, op.ram);
        w.checkRam(open<SimRamRef>(ram), op.layer, op.eid, 'CPU expert');
        const input = open<BlockRow>(op.input);
        return seal({ token: input.token, layer: input.layer, eid: op.eid, via: 'cpu' } satisfies SimOutput);
      },
      combine: (w, op) => {
        const tokens = w.scenario.routes.length;
        const routed =
          w.chosen.get(op.token * w.scenario.layers + op.layer) ??
          w.scenario.routes[tokens === 0 ? op.token : op.token % tokens]?.[op.layer] ??
          [];
        w.combined.record(op.token, op.layer, routed, op.parts, (p) => open<SimOutput>(p.output));
      },
      finishToken: () => undefined,
      // the trunk's own arithmetic is the real world's; the tier's part of it (the
      // dense_matmul calls, their GEMVs and buffers) is modelled above
      trunkBegin: () => undefined,
      attention: () => undefined,
      denseCpu: () => undefined,
    };
  }

  /**
   * A trunk matrix onto a device: two allocations (its int8 rows and its scales). The
   * backend keeps its tensors in a cache by shape (device, matrix, size): one it still
   * holds comes back as it is, with no copy (and of whatever generation made it).
   */
  private uploadDense(op: OpOf<'uploadDense'>): TensorHandle | null {
    const L = this.ledger;
    const bytes = deviceFootprint(op.weightBytes) + (op.scaleBytes > 0 ? deviceFootprint(op.scaleBytes) : 0);
    const key = `${op.dev}/${op.index}/${bytes}`;
    const cached = this.shapeCache.get(key);
    if (cached !== undefined && cached.alive) return seal(cached);
    if (L.backendShutdown) L.newSession();
    if ((L.consumed[op.dev] ?? 0) + bytes > (this.capacity[op.dev] ?? 0)) return null;
    const t = L.alloc(op.dev, -1, op.index, 'dense', bytes);
    this.shapeCache.set(key, t);
    return seal(t);
  }

  private checkRam(ref: SimRamRef, layer: number, eid: number, what: string): void {
    const problem = this.ram.checkRead(ref, layer, eid);
    if (problem !== null) throw new Violation('MEM-RAM', `${what} of L${layer}E${eid}: ${problem}`);
  }

  /** A second run decodes the same tokens again. */
  private route(token: number, layer: number): RouteInfo {
    const tokens = this.scenario.routes.length;
    const eids = this.scenario.routes[tokens === 0 ? token : token % tokens]?.[layer];
    if (eids === undefined) throw new Error(`scenario has no route for token ${token} layer ${layer}`);
    const input: BlockRow = { token, layer };
    const prefer = this.scenario.prefer;
    if (prefer === null) return { token, layer, eids, input: seal(input) };
    return {
      token,
      layer,
      eids,
      input: seal(input),
      candidates: candidatesOf(eids, this.scenario.experts, prefer.window),
    };
  }

  /** The engine's choice among the candidates, recorded: the combine check holds it to it. */
  private routeChoose(token: number, layer: number, eids: readonly number[]): RouteInfo {
    const offered = this.route(token, layer);
    const cands = offered.candidates ?? offered.eids;
    if (
      eids.length !== offered.eids.length ||
      new Set(eids).size !== eids.length ||
      eids.some((e) => !cands.includes(e))
    )
      throw new Error(`internal error: t${token} L${layer} chose [${eids.join(',')}] from [${cands.join(',')}]`);
    this.chosen.set(token * this.scenario.layers + layer, eids);
    return { token, layer, eids, input: offered.input };
  }

  private issueGroup(dev: number, rowOffset: number, rows: readonly GroupRow[]): boolean {
    if (this.faults.fails('issue')) return false;
    const tensors: SimTensor[] = [];
    const outs: SimOutput[] = [];
    rows.forEach((row, i) => {
      const input = this.ledger.inputRows[rowOffset + i];
      const parts = row.tensors.map((t) => open<SimTensor>(t));
      tensors.push(...parts);
      const first = parts[0];
      // the device computes whatever the tensors and the input row really hold
      outs.push({
        token: input?.token ?? -1,
        layer: input?.layer ?? -1,
        eid: first !== undefined && parts.every((t) => t.eid === first.eid && t.layer === row.layer) ? first.eid : -1,
        via: 'gpu',
      });
    });
    this.ledger.openGroup(dev, tensors, `group on device ${dev}`);
    this.pending[dev] = outs;
    return true;
  }

  private takeGroup(dev: number): OpResults['takeGroup'] {
    this.ledger.closeGroup(dev);
    const outs = this.pending[dev] ?? null;
    this.pending[dev] = null;
    if (this.faults.fails('take')) return null;
    return outs === null ? null : outs.map((o) => seal(o));
  }

  duration(op: Op): number {
    switch (op.k) {
      case 'upload':
        return (this.partFootprint[EXPERT_PARTS.indexOf(op.part)] ?? 0) / 25_000; // 25 GB/s
      case 'stage':
        return this.expertFootprint / 10_000; // 10 GB/s memcpy
      case 'issueGroup':
        return 5;
      case 'takeGroup':
        return 20;
      case 'cpuExpert':
        return 30;
      case 'route':
        return 10;
      default:
        return 0.1;
    }
  }

  describe(op: Op, result: unknown): string {
    switch (op.k) {
      case 'stage':
        return `stage L${op.layer}E${op.eid} -> ${result === null ? 'FAILED (host memory)' : `s${open<SimStaging>(result).id}`}`;
      case 'unstage':
        return `unstage s${open<SimStaging>(op.staging).id}`;
      case 'upload':
        return `upload L${op.layer}E${op.eid}.${op.part} dev${op.dev} -> ${result === null ? 'FAILED' : `t${open<SimTensor>(result).id}`}`;
      case 'free':
        return `free ${describeTensor(open<SimTensor>(op.tensor))}`;
      case 'writeInput':
        return `input rows ${op.rowOffset}..${op.rowOffset + op.rows - 1} dev${op.dev}`;
      case 'issueGroup':
        return `issue dev${op.dev} [${op.rows.map((r) => `E${r.eid}`).join(' ')}]${result === false ? ' FAILED' : ''}`;
      case 'takeGroup':
        return `take dev${op.dev}${result === null ? ' FAILED' : ''}`;
      case 'route': {
        const r = open<RouteInfo>(result);
        const c = r.candidates === undefined ? '' : ` of [${r.candidates.join(' ')}]`;
        return `route t${op.token} L${op.layer} -> [${r.eids.join(' ')}]${c}`;
      }
      case 'routeChoose':
        return `route chosen t${op.token} L${op.layer} [${op.eids.join(' ')}]`;
      case 'syncInit':
        return `syncInit${result === false ? ' FAILED' : ''}`;
      case 'syncDestroy':
        return 'syncDestroy';
      case 'ramOf':
      case 'loadRam': {
        const r = open<SimRamRef | null>(result);
        return `${op.k} L${op.layer}E${op.eid} -> ${r === null ? 'none' : `r${r.slot}.${r.gen}`}`;
      }
      case 'freeRam':
        return `freeRam L${op.layer}E${op.eid}`;
      case 'recycleRam':
        return `recycle r${open<SimRamRef>(op.ram).slot}`;
      case 'cpuExpert':
        return `cpu L${op.layer}E${op.eid}`;
      case 'combine':
        return `combine t${op.token} L${op.layer} [${op.parts.map((p) => `${p.eid}${p.where === 'gpu' ? 'g' : 'c'}`).join(' ')}]`;
      case 'memInfo':
        return `memInfo dev${op.dev} free ${open<{ free: number }>(result).free}`;
      case 'hostAlloc':
        return `hostAlloc ${op.what} ${op.bytes} B -> ${result === null ? 'FAILED' : `h${open<SimHostArray>(result).id}`}`;
      case 'hostFree':
        return `hostFree h${open<SimHostArray>(op.array).id}`;
      case 'readHeat':
        return `readHeat -> ${result === null ? 'no file' : `${open<Uint8Array>(result).byteLength} B`}`;
      case 'writeHeat':
        return `writeHeat ${op.bytes.byteLength} B`;
      default:
        return op.k;
    }
  }
}

/** The heat file on disk for a scenario: the table encoded, then damaged as asked (or none). */
function heatFileOnDisk(
  heat: readonly (readonly number[])[],
  experts: number,
  defect: HeatFileDefect,
): Uint8Array | null {
  const bytes = encodeHeat(heat, experts);
  switch (defect) {
    case 'bad-magic':
      bytes[0] = (bytes[0] ?? 0) ^ 0xff;
      return bytes;
    case 'wrong-shape':
      return encodeHeat([...heat, heat[0] ?? []], experts);
    case 'truncated':
      return bytes.slice(0, bytes.byteLength - 4);
    case 'trailing-bytes': {
      const longer = new Uint8Array(bytes.byteLength + 4);
      longer.set(bytes);
      return longer;
    }
    case 'other-model-same-size':
      return otherModelSameSize(bytes, heat.length, experts);
    case 'empty':
      return new Uint8Array(0);
    case 'short-header':
      return bytes.slice(0, 6);
    case 'wrong-layer-count':
      return withCount(bytes, 4, heat.length + 1);
    case 'wrong-expert-count':
      return withCount(bytes, 8, experts + 1);
    case 'absent':
      return null;
    default:
      return bytes;
  }
}

/**
 * The router's top-`window` candidates for a route: the routed experts first, then the
 * others in a fixed order (from the first routed expert upwards, wrapping).
 */
export function candidatesOf(routed: readonly number[], experts: number, window: number): number[] {
  const out = [...routed];
  const first = routed[0] ?? 0;
  for (let i = 1; i < experts && out.length < window; i++) {
    const e = (first + i) % experts;
    if (!out.includes(e)) out.push(e);
  }
  return out;
}

/** The same bytes with the header's count at `offset` (4: layers, 8: experts) set to `count`. */
function withCount(bytes: Uint8Array, offset: 4 | 8, count: number): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(offset, count, true);
  return bytes;
}

/** The same bytes under another model's counts of the same product (so the same length). */
function otherModelSameSize(bytes: Uint8Array, layers: number, experts: number): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [l, e] = layers !== experts ? [experts, layers] : [1, layers * experts];
  v.setUint32(4, l, true);
  v.setUint32(8, e, true);
  return bytes;
}

/** room for dense residents on a device with "plenty" of memory */
const DENSE_ROOM = 64 << 20;
