/**
 * The simulated world: answers every backend and engine op a thread yields, over the
 * ledger (device memory, staging, buffers), the RAM pool and the fault plan.
 *
 * Values handed to the tier are the ledger's own records (a tensor handle is its
 * SimTensor, a staging copy its SimStaging), so the checks need no lookup tables.
 * An expert's output records which token, layer and expert really produced it, so a
 * lost, doubled, stale or misrouted contribution is caught where it is combined.
 */
import type { Contribution, GroupRow, Op, RouteInfo } from '../../src/ops.js';
import type { CheckedWorld } from '../../src/check/checked_world.js';
import type { SimWorld } from '../rt/world.js';
import { Violation } from '../../src/check/violation.js';
import { RamPool, type SimRamRef } from '../ram/ram.js';
import type { Scenario } from '../scenario.js';
import { deviceFootprint } from '../../src/check/allocator.js';
import { FaultCounter } from './faults.js';
import { describeTensor, Ledger, type BlockRow, type SimStaging, type SimTensor } from '../../src/check/ledger.js';

export interface SimOutput {
  readonly token: number;
  readonly layer: number;
  readonly eid: number;
  readonly via: 'gpu' | 'cpu';
}

const PARTS = ['gate', 'up', 'down'];

export class SimulatedWorld implements SimWorld, CheckedWorld {
  readonly ledger: Ledger;
  readonly ram: RamPool;
  /** ground truth: what one expert really takes on a device */
  readonly expertFootprint: number;
  readonly capacity: number[];
  readonly partFootprint: number[];
  readonly combined = new Set<number>();
  combines = 0;
  savedHeat: readonly (readonly number[])[] | null = null;
  /** tensors and staging copies still alive when the backend was shut down */
  leakedAtShutdown: { tensors: number; staging: number } | null = null;
  readonly injected = { upload: 0, issue: 0, take: 0 };
  private readonly uploadFaults: FaultCounter;
  private readonly issueFaults: FaultCounter;
  private readonly takeFaults: FaultCounter;
  private readonly loadFaults: FaultCounter;
  private readonly stageFaults: FaultCounter;
  /** per device: outputs of the group in flight */
  private readonly pending: (SimOutput[] | null)[];

  constructor(
    readonly scenario: Scenario,
    readonly rowsPerDevice: number,
  ) {
    const s = scenario;
    this.ledger = new Ledger(s.devices, rowsPerDevice, s.reclaims);
    this.ram = new RamPool(s.experts);
    this.partFootprint = s.weightBytes.map((wb) => deviceFootprint(wb) + deviceFootprint(scaleBytesOf(wb)));
    this.expertFootprint = this.partFootprint.reduce((a, b) => a + b, 0);
    const plenty = (s.layers * s.experts + 8) * this.expertFootprint + DENSE_ROOM;
    this.capacity = s.capacityExperts.map((c) => (c === null ? plenty : c * this.expertFootprint));
    this.uploadFaults = new FaultCounter(s.faults.uploadFails);
    this.issueFaults = new FaultCounter(s.faults.issueFails);
    this.takeFaults = new FaultCounter(s.faults.takeFails);
    this.loadFaults = new FaultCounter(s.faults.loadFails ?? []);
    this.stageFaults = new FaultCounter(s.faults.stageFails ?? []);
    this.pending = new Array<SimOutput[] | null>(s.devices).fill(null);
    if (!s.streaming) {
      const none = new Set(s.noRam.map((k) => k.layer * s.experts + k.eid));
      for (let layer = 0; layer < s.layers; layer++) {
        for (let eid = 0; eid < s.experts; eid++) if (!none.has(layer * s.experts + eid)) this.ram.load(layer, eid);
      }
    }
  }

  get expectedCombines(): number {
    return this.scenario.routes.length * this.scenario.layers;
  }

  exec(op: Op): unknown {
    switch (op.k) {
      case 'memInfo': {
        const total = this.capacity[op.dev] ?? 0;
        return { free: total - (this.ledger.consumed[op.dev] ?? 0), total };
      }
      case 'stage': {
        this.checkRam(op.ram as unknown as SimRamRef, op.layer, op.eid, 'staging copy');
        if (this.stageFaults.next()) return null;
        return this.ledger.stage(op.layer, op.eid);
      }
      case 'unstage':
        this.ledger.unstage(op.staging as unknown as SimStaging);
        return undefined;
      case 'upload': {
        this.ledger.checkUploadSource(op.staging as unknown as SimStaging, op.layer, op.eid);
        if (this.uploadFaults.next()) {
          this.injected.upload++;
          return null;
        }
        const bytes = this.partFootprint[PARTS.indexOf(op.part)] ?? 0;
        if ((this.ledger.consumed[op.dev] ?? 0) + bytes > (this.capacity[op.dev] ?? 0)) {
          this.ledger.oomFailures++;
          return null;
        }
        return this.ledger.alloc(op.dev, op.layer, op.eid, op.part, bytes);
      }
      case 'uploadDense':
        if ((this.ledger.consumed[op.dev] ?? 0) + deviceFootprint(op.bytes) > (this.capacity[op.dev] ?? 0)) return null;
        return this.ledger.alloc(op.dev, -1, -1, 'dense', deviceFootprint(op.bytes));
      case 'free':
        this.ledger.free(op.tensor as unknown as SimTensor, op.dev);
        return undefined;
      case 'writeInput':
        this.ledger.writeInput(op.dev, op.rowOffset, op.rows, op.input as unknown as BlockRow);
        return undefined;
      case 'issueGroup':
        return this.issueGroup(op.dev, op.rowOffset, op.rows);
      case 'takeGroup':
        return this.takeGroup(op.dev);
      case 'denseGemv': {
        const t = op.tensor as unknown as SimTensor;
        if (!t.alive) throw new Violation('MEM-DEVICE', `dense GEMV on device ${op.dev} reads freed tensor ${describeTensor(t)}`);
        this.ledger.claim(op.inBuf, `dense GEMV on device ${op.dev}`);
        this.ledger.claim(op.outBuf, `dense GEMV on device ${op.dev}`);
        this.ledger.release(op.inBuf);
        this.ledger.release(op.outBuf);
        return undefined;
      }
      case 'readHeat':
        return this.scenario.heatFile;
      case 'writeHeat':
        this.savedHeat = op.heat;
        return undefined;
      case 'backendShutdown':
        this.leakedAtShutdown = { tensors: this.ledger.liveTensors, staging: this.ledger.liveStaging };
        this.ledger.backendShutdown = true;
        return undefined;
      case 'route':
        return this.route(op.token, op.layer);
      case 'ramOf':
        return this.ram.current(op.layer, op.eid);
      case 'loadRam':
        if (op.why === 'warmstart' && this.loadFaults.next()) return null;
        return this.ram.load(op.layer, op.eid);
      case 'freeRam': {
        const ref = this.ram.current(op.layer, op.eid);
        if (ref !== null) this.ram.release(ref);
        return undefined;
      }
      case 'recycleRam':
        this.ram.release(op.ram as unknown as SimRamRef);
        return undefined;
      case 'cpuExpert': {
        if (op.ram === null) {
          throw new Violation('COMP-MISS-WEIGHTS', `L${op.layer}E${op.eid} computed on the CPU with no RAM weights`);
        }
        this.checkRam(op.ram as unknown as SimRamRef, op.layer, op.eid, 'CPU expert');
        const input = op.input as unknown as BlockRow;
        return { token: input.token, layer: input.layer, eid: op.eid, via: 'cpu' } satisfies SimOutput;
      }
      case 'combine':
        this.combine(op.token, op.layer, op.parts);
        return undefined;
      case 'finishToken':
        return undefined;
      default:
        throw new Error(`the simulated world has no op '${op.k}'`);
    }
  }

  private checkRam(ref: SimRamRef, layer: number, eid: number, what: string): void {
    const problem = this.ram.checkRead(ref, layer, eid);
    if (problem !== null) throw new Violation('MEM-RAM', `${what} of L${layer}E${eid}: ${problem}`);
  }

  private route(token: number, layer: number): RouteInfo {
    const eids = this.scenario.routes[token]?.[layer];
    if (eids === undefined) throw new Error(`scenario has no route for token ${token} layer ${layer}`);
    const input: BlockRow = { token, layer };
    return { token, layer, eids, input: input as unknown as RouteInfo['input'] };
  }

  private issueGroup(dev: number, rowOffset: number, rows: readonly GroupRow[]): boolean {
    if (this.issueFaults.next()) {
      this.injected.issue++;
      return false;
    }
    const tensors: SimTensor[] = [];
    const outs: SimOutput[] = [];
    rows.forEach((row, i) => {
      const input = this.ledger.inputRows[rowOffset + i];
      const parts = row.tensors as unknown as SimTensor[];
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

  private takeGroup(dev: number): SimOutput[] | null {
    this.ledger.closeGroup(dev);
    const outs = this.pending[dev] ?? null;
    this.pending[dev] = null;
    if (this.takeFaults.next()) {
      this.injected.take++;
      return null;
    }
    return outs;
  }

  private combine(token: number, layer: number, parts: readonly Contribution[]): void {
    const key = token * this.scenario.layers + layer;
    if (this.combined.has(key)) throw new Violation('COMP-EXACT-ONCE', `token ${token} layer ${layer} combined twice`);
    this.combined.add(key);
    this.combines++;
    const want = this.scenario.routes[token]?.[layer] ?? [];
    const got = parts.map((p) => p.eid);
    if (got.length !== want.length || got.some((e, i) => e !== want[i])) {
      throw new Violation(
        'COMP-EXACT-ONCE',
        `token ${token} layer ${layer}: combined experts [${got.join(',')}] in that order, routed [${want.join(',')}]`,
      );
    }
    for (const p of parts) {
      const out = p.output as unknown as SimOutput;
      if (out.token !== token || out.layer !== layer || out.eid !== p.eid) {
        throw new Violation(
          'COMP-EXACT-ONCE',
          `token ${token} layer ${layer}: expert ${p.eid}'s output (${p.where}) was computed as token ${out.token} layer ${out.layer} expert ${out.eid}`,
        );
      }
    }
  }

  duration(op: Op): number {
    switch (op.k) {
      case 'upload':
        return (this.partFootprint[PARTS.indexOf(op.part)] ?? 0) / 25_000; // 25 GB/s
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
        return `stage L${op.layer}E${op.eid} -> ${result === null ? 'FAILED (host memory)' : `s${(result as SimStaging).id}`}`;
      case 'unstage':
        return `unstage s${(op.staging as unknown as SimStaging).id}`;
      case 'upload':
        return `upload L${op.layer}E${op.eid}.${op.part} dev${op.dev} -> ${result === null ? 'FAILED' : `t${(result as SimTensor).id}`}`;
      case 'free':
        return `free ${describeTensor(op.tensor as unknown as SimTensor)}`;
      case 'writeInput':
        return `input rows ${op.rowOffset}..${op.rowOffset + op.rows - 1} dev${op.dev}`;
      case 'issueGroup':
        return `issue dev${op.dev} [${op.rows.map((r) => `E${r.eid}`).join(' ')}]${result === false ? ' FAILED' : ''}`;
      case 'takeGroup':
        return `take dev${op.dev}${result === null ? ' FAILED' : ''}`;
      case 'route': {
        const r = result as RouteInfo;
        return `route t${op.token} L${op.layer} -> [${r.eids.join(' ')}]`;
      }
      case 'ramOf':
      case 'loadRam': {
        const r = result as SimRamRef | null;
        return `${op.k} L${op.layer}E${op.eid} -> ${r === null ? 'none' : `r${r.slot}.${r.gen}`}`;
      }
      case 'freeRam':
        return `freeRam L${op.layer}E${op.eid}`;
      case 'recycleRam':
        return `recycle r${(op.ram as unknown as SimRamRef).slot}`;
      case 'cpuExpert':
        return `cpu L${op.layer}E${op.eid}`;
      case 'combine':
        return `combine t${op.token} L${op.layer} [${op.parts.map((p) => `${p.eid}${p.where === 'gpu' ? 'g' : 'c'}`).join(' ')}]`;
      case 'memInfo': {
        const r = result as { free: number };
        return `memInfo dev${op.dev} free ${r.free}`;
      }
      default:
        return op.k;
    }
  }
}

/** scale bytes of a tensor: one float32 per 16 weight bytes */
export function scaleBytesOf(weightBytes: number): number {
  return Math.ceil(weightBytes / 16);
}

/** room for dense residents on a device with "plenty" of memory */
const DENSE_ROOM = 64 << 20;
