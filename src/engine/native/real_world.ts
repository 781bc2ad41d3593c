/**
 * The real world: answers the ops of the tier and of the engine driver with the native
 * engine (through the binding) and a model whose experts live in a file (EngineModel).
 *
 * Every device-side op is mirrored into a shadow of the model's own ledger, so the
 * model's checkers see a real run exactly as they see a simulated one: a free of a
 * tensor an open group reads, a stale staging copy, an input write outside its block,
 * a leak at shutdown are the same violations with the same ids. The shadow never
 * changes what the engine does.
 * Expert bytes move in native code only: RAM copies are the engine's (real_ram.ts),
 * staging and uploads are real_transfers.ts (an upload returns once the copy is on its
 * way: no promise, no event-loop turn), and finished groups come back through the
 * engine's completion queue in batches (completions.ts). Each op allocates a constant
 * number of small JavaScript objects, whatever the tensor's size.
 */
import type { FaultPlan } from '../fault_sites.js';
import type {
  Contribution,
  DeviceBuffer,
  ExpertOutput,
  GroupRow,
  HostArray,
  Op,
  OpOf,
  OpResults,
  RamRef,
  RouteInfo,
  StagingCopy,
  TensorHandle,
  WorldOpKind,
} from '../../ops.js';
import type { EngineModel } from '../../fixture/model_types.js';
import { MAX_GROUP_ROWS } from '../../tier/config.js';
import type { CheckedWorld } from '../../check/checked_world.js';
import { CombineLedger, requireCpuWeights } from '../../check/combine.js';
import { Ledger, type SimHostArray, type SimStaging, type SimTensor } from '../../check/ledger.js';
import { Violation } from '../../check/violation.js';
import type { NativeEngineLib, NativePtr } from './binding.js';
import { CompletionQueue } from './completions.js';
import { RealTransfers, type RealStaging, type RealTensor } from './real_transfers.js';
import { RealRamTable, type RamPolicy, type RealRam } from './real_ram.js';
import type { RealWorldApi } from './real_runtime.js';
import { readHeatBytes, writeHeatBytes } from './heat_file.js';
import { Trunk, type DecodeTrunk, type LayerRoute } from './trunk.js';
import { Int8Trunk } from './int8_trunk.js';
import { RealStats, type TimeBucket } from './real_stats.js';
import { routeAmong, routeCandidates } from './routing.js';
import { TRUNK_INT8 } from '../../fixture/model_types.js';

/** Each op a world answers, with its result type or a promise of it (a native wait). */
type Handlers = { readonly [K in WorldOpKind]: (op: OpOf<K>) => OpResults[K] | Promise<OpResults[K]> };

/** The decode-time bucket each op's whole handler counts in (exec times it; ops not
 *  named here count in none, or time their own native call, as free and take do). */
const BUCKET: Partial<Record<WorldOpKind, TimeBucket>> = {
  stage: 'ffi',
  unstage: 'ffi',
  upload: 'ffi',
  issueGroup: 'ffi',
  uploadDense: 'ffi',
  loadRam: 'ffi',
  freeRam: 'ffi',
  recycleRam: 'ffi',
  cpuExpert: 'cpuExperts',
  trunkBegin: 'trunk',
  attention: 'trunk',
  denseCpu: 'trunk',
  route: 'trunk',
  routeChoose: 'trunk',
  combine: 'trunk',
  finishToken: 'trunk',
};

/** The real world's handles are its own records: the one place the opaque types are opened. */
function open<T>(handle: unknown): T {
  return handle as T;
}
function seal<H>(record: object): H {
  return record as unknown as H;
}
function sealOrNull<H>(record: object | null): H | null {
  return record === null ? null : seal<H>(record);
}

interface Activation {
  readonly token: number;
  readonly layer: number;
  readonly x: Float32Array;
}
interface RealOutput {
  readonly token: number;
  readonly layer: number;
  readonly eid: number;
  readonly y: Float32Array;
}
interface OpenGroup {
  readonly tag: number;
  readonly rows: RealOutput[];
}

export interface RealWorldOptions {
  readonly devices: number;
  /** every expert in RAM from model open, or streaming mode's per-layer LRU */
  readonly ram: RamPolicy;
  readonly heatPath: string | null;
  /** input tokens: the prompt, then each step's argmax */
  readonly prompt: readonly number[];
  readonly steps: number;
  /** the host side's fault arm (the native engine arms upload, issue and take): 0-based
   *  indices of the warmstart RAM loads that fail (a loader that cannot read an expert
   *  hands the tier null weights) and of the staging copies that cannot be made */
  readonly hostFaults?: Pick<FaultPlan, 'loadFails' | 'stageFails'>;
  /** prefer-resident routing: the router's top-`preferWindow` candidates go with each
   *  route (0: none) */
  readonly preferWindow?: number;
  /** every route given, per step and layer (the routing decisions of an earlier run): the
   *  router's own choice is replaced by these, weighted by the library's tl_route */
  readonly forcedRoutes?: readonly (readonly (readonly number[])[])[];
}

export class RealWorld implements RealWorldApi, CheckedWorld {
  readonly ledger: Ledger;
  readonly ram: RealRamTable;
  readonly trunk: DecodeTrunk;
  /** the int8 trunk, whose matrices go through the tier (null: the float32 trunk) */
  private readonly int8: Int8Trunk | null;
  /** per device: tensor bytes the backend says it holds, as of the last upload or free */
  private readonly held: number[];
  /** an upload since held[dev] was read: the next look asks the engine (one call, not one per upload) */
  private readonly heldStale: boolean[];
  readonly combined: CombineLedger;
  readonly expectedCombines: number;
  leakedAtShutdown: { tensors: number; staging: number } | null = null;
  /** argmax of every step, and the final hidden state of every step (bit comparisons) */
  readonly argmax: number[] = [];
  readonly hidden: Float32Array[] = [];
  /** warmstart RAM loads and staging copies so far (the indices hostFaults counts) */
  private warmstartLoads = 0;
  private stages = 0;
  readonly stats = new RealStats();
  private readonly transfers: RealTransfers;
  private readonly completions: CompletionQueue;
  private readonly block: Float32Array;
  private readonly routes = new Map<number, LayerRoute>();
  /** the route of every step and layer, in route order: the run's routing decisions */
  readonly routing: number[][][] = [];
  private readonly groups: (OpenGroup | null)[];
  private groupTags = 0;
  private engineAlive = true;
  /** decode wall time: first route to last token */
  decodeStarted = 0;
  decodeEnded = 0;
  private readonly H: number;
  private readonly handlers: Handlers;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    model: EngineModel,
    private readonly opts: RealWorldOptions,
  ) {
    this.H = model.shape.hidden;
    this.ledger = new Ledger(opts.devices, MAX_GROUP_ROWS, lib.reclaims(engine));
    this.ram = new RealRamTable(lib, engine, model, opts.ram);
    this.int8 = model.shape.trunkFormat === TRUNK_INT8 ? new Int8Trunk(lib, model, opts.steps + 1) : null;
    this.trunk = this.int8 ?? new Trunk(lib, model, opts.steps + 1);
    this.held = new Array<number>(opts.devices).fill(0);
    this.heldStale = new Array<boolean>(opts.devices).fill(false);
    this.block = new Float32Array(opts.devices * MAX_GROUP_ROWS * this.H);
    this.groups = new Array<OpenGroup | null>(opts.devices).fill(null);
    this.expectedCombines = opts.steps * model.shape.layers;
    this.combined = new CombineLedger(model.shape.layers);
    this.transfers = new RealTransfers(lib, engine, model, this.ledger, this.ram, this.stats);
    this.completions = new CompletionQueue(
      lib,
      engine,
      (c) => this.transfers.landed(c),
      (m) => this.stats.failures.push(m),
    );
    this.handlers = this.makeHandlers();
  }

  deviceBytes(tensor: TensorHandle): number {
    return open<RealTensor>(tensor).bytes;
  }

  tensorOwner(tensor: TensorHandle): SimTensor {
    return open<RealTensor>(tensor).shadow;
  }

  stagingOwner(staging: StagingCopy): SimStaging {
    return open<RealStaging>(staging).shadow;
  }

  hostArrayKind(array: HostArray): string {
    return open<SimHostArray>(array).what;
  }

  deviceHeldBytes(dev: number): number | null {
    if (this.heldStale[dev] === true) this.refreshHeld(dev);
    return this.held[dev] ?? 0;
  }

  /** Frees a device tensor, and checks that a backend that says it reclaims gave its
   *  memory back: one that does not cannot reclaim, and every swap on it leaks (the
   *  fill-once variant's rule, seen from the device's own count). */
  private freeTensor(dev: number, t: RealTensor): void {
    this.ledger.free(t.shadow, dev);
    if (!this.engineAlive) throw new Violation('MEM-DEVICE', `free of ${t.shadow.part} after the backend shut down`);
    const before = this.deviceHeldBytes(dev) ?? 0; // read before the free, if an upload made it stale
    const st = this.timed('ffi', () => this.lib.free(this.engine, t.ptr));
    if (st.code !== 0) this.stats.failures.push(`free: ${st.message}`);
    this.refreshHeld(dev);
    if (st.code === 0 && this.ledger.reclaims && (this.held[dev] ?? 0) >= before) {
      throw new Violation(
        'VARIANT-FILL-ONCE',
        `device ${dev}: freeing ${t.shadow.part} gave nothing back (the backend holds ${before} bytes before and after), yet it says it reclaims`,
      );
    }
  }

  /** re-reads the backend's own count of dev's tensor bytes (after an upload or a free) */
  private refreshHeld(dev: number): void {
    this.heldStale[dev] = false;
    const r = this.lib.deviceBytes(this.engine, dev);
    if (r.status.code !== 0) this.stats.failures.push(`device bytes dev${dev}: ${r.status.message}`);
    else this.held[dev] = r.bytes;
  }

  private int8Trunk(what: string): Int8Trunk {
    if (this.int8 === null) throw new Error(`internal error: ${what} on a model whose trunk is float32`);
    return this.int8;
  }

  get combines(): number {
    return this.combined.combines;
  }

  private inputToken(step: number): number {
    if (step < this.opts.prompt.length) return this.opts.prompt[step] ?? 0;
    const t = this.argmax[step - 1];
    if (t === undefined) throw new Error(`step ${step} before step ${step - 1} finished`);
    return t;
  }

  exec(op: Op): unknown {
    const handler = this.handlers[op.k as WorldOpKind] as ((op: Op) => unknown) | undefined;
    if (handler === undefined) throw new Error(`internal error: the real world has no op '${op.k}'`);
    if (op.k === 'route' && this.decodeStarted === 0) this.decodeStarted = performance.now();
    // the buckets split the decode's time (first route on): before it (a warmstart's
    // fill, its RAM loads) an op pays no clock reads, and no closure is made to time it
    const bucket = this.decodeStarted === 0 ? undefined : BUCKET[op.k as WorldOpKind];
    if (bucket === undefined) return handler(op);
    const t0 = performance.now();
    try {
      return handler(op);
    } finally {
      this.stats.addTime(bucket, performance.now() - t0);
    }
  }

  /** Times a synchronous piece of work into one of the stats' buckets. */
  private timed<T>(bucket: TimeBucket, work: () => T): T {
    // the buckets split the decode's time (first route on): before it (a warmstart's
    // fill, its RAM loads) a native call pays no clock reads and counts in no bucket
    if (this.decodeStarted === 0) return work();
    const t0 = performance.now();
    try {
      return work();
    } finally {
      this.stats.addTime(bucket, performance.now() - t0);
    }
  }

  private makeHandlers(): Handlers {
    const L = this.ledger;
    return {
      hostAlloc: (op) => {
        // an init after a teardown (an init racing the shutdown, and winning): a new session
        if (!this.engineAlive) {
          this.engineAlive = true;
          L.newSession();
        }
        return seal(L.hostAlloc(op.what, op.bytes));
      },
      hostFree: (op) => L.hostFree(open<SimHostArray>(op.array)),
      // the real mutex and condition variables are the runtime's: nothing can fail here
      syncInit: () => {
        L.sync.created();
        return true;
      },
      syncDestroy: () => L.sync.destroyed(null),
      memInfo: (op) => {
        const r = this.lib.memInfo(this.engine, op.dev);
        if (r.status.code !== 0) {
          this.stats.failures.push(`memInfo dev${op.dev}: ${r.status.message}`);
          return null;
        }
        return { free: r.free, total: r.total };
      },
      stage: (op) => {
        if ((this.opts.hostFaults?.stageFails ?? []).includes(this.stages++)) return null;
        return sealOrNull(this.transfers.stage(open<RealRam>(op.ram), op.layer, op.eid));
      },
      unstage: (op) => this.transfers.unstage(open<RealStaging>(op.staging)),
      upload: (op) => {
        const t = this.transfers.upload(op.dev, open<RealStaging>(op.staging), op.part, op.layer, op.eid);
        this.heldStale[op.dev] = true;
        return sealOrNull(t);
      },
      free: (op) => this.freeTensor(op.dev, open<RealTensor>(op.tensor)),
      writeInput: (op) => {
        const a = open<Activation>(op.input);
        L.writeInput(op.dev, op.rowOffset, op.rows, { token: a.token, layer: a.layer });
        for (let r = 0; r < op.rows; r++) this.block.set(a.x, (op.rowOffset + r) * this.H);
      },
      issueGroup: (op) => this.issueGroup(op.dev, op.rowOffset, op.rows),
      takeGroup: (op) => this.takeGroup(op.dev),
      uploadDense: (op) => sealOrNull(this.uploadDense(op.dev, op.index)),
      denseGemv: (op) => this.denseGemv(op.dev, op.index, open<RealTensor>(op.tensor), op.inBuf, op.outBuf),
      trunkBegin: (op) => this.int8Trunk('trunkBegin').beginLayer(op.layer, () => this.inputToken(op.token)),
      attention: (op) => this.int8Trunk('attention').attention(op.layer),
      denseCpu: (op) => this.int8Trunk('a CPU trunk GEMV').onCpu(op.index),
      readHeat: () => (this.opts.heatPath === null ? null : readHeatBytes(this.opts.heatPath, this.stats.failures)),
      writeHeat: (op) => {
        if (this.opts.heatPath !== null) writeHeatBytes(this.opts.heatPath, op.bytes);
      },
      backendShutdown: () => this.backendShutdown(),
      route: (op) => this.route(op.token, op.layer),
      routeChoose: (op) => this.routeChoose(op.token, op.layer, op.eids),
      ramOf: (op) => sealOrNull(this.ram.current(op.layer, op.eid)),
      loadRam: (op) => {
        if (op.why === 'warmstart' && (this.opts.hostFaults?.loadFails ?? []).includes(this.warmstartLoads++))
          return null;
        return seal(this.ram.load(op.layer, op.eid));
      },
      freeRam: (op) => {
        const ram = this.ram.current(op.layer, op.eid);
        if (ram !== null) this.ram.release(ram);
      },
      recycleRam: (op) => this.ram.release(open<RealRam>(op.ram)),
      cpuExpert: (op) => seal(this.cpuExpert(op.layer, op.eid, op.ram, open<Activation>(op.input))),
      combine: (op) => this.combine(op.token, op.layer, op.parts),
      finishToken: () => {
        this.argmax.push(this.trunk.finish());
        this.hidden.push(this.trunk.x.slice());
        this.decodeEnded = performance.now();
      },
    };
  }

  /** A resident trunk GEMV on its device, holding the dense buffers it names while it runs. */
  private denseGemv(dev: number, index: number, t: RealTensor, inBuf: DeviceBuffer, outBuf: DeviceBuffer): void {
    if (!t.shadow.alive)
      throw new Violation('MEM-DEVICE', `dense GEMV on device ${dev} reads freed trunk matrix #${index}`);
    const who = `dense GEMV on device ${dev}`;
    this.ledger.claim(inBuf, who);
    this.ledger.claim(outBuf, who);
    this.timed('trunk', () =>
      this.int8Trunk('a dense GEMV').onDevice(index, (x, y) => this.lib.denseMatvec(this.engine, dev, t.ptr, x, y)),
    );
    this.ledger.release(inBuf);
    this.ledger.release(outBuf);
  }

  private issueGroup(dev: number, rowOffset: number, rows: readonly GroupRow[]): boolean {
    const tensors = rows.map((r) => r.tensors.map((h) => open<RealTensor>(h)));
    this.ledger.openGroup(
      dev,
      tensors.flat().map((t) => t.shadow),
      `group on device ${dev}`,
    );
    const x = this.block.subarray(rowOffset * this.H, (rowOffset + rows.length) * this.H);
    const ptrs = (i: number) => tensors.map((ts) => ts[i]?.ptr ?? null);
    const tag = 2 * ++this.groupTags + 1;
    const st = this.lib.issue(this.engine, dev, ptrs(0), ptrs(1), ptrs(2), x, this.H, tag);
    if (st.code !== 0) {
      this.ledger.closeGroup(dev);
      this.stats.failures.push(`issue dev${dev}: ${st.message}`);
      return false;
    }
    const outputs = rows.map((row, i) => {
      const src = this.ledger.inputRows[rowOffset + i];
      return { token: src?.token ?? -1, layer: src?.layer ?? -1, eid: row.eid, y: new Float32Array(0) };
    });
    this.groups[dev] = { tag, rows: outputs };
    return true;
  }

  /** Waits for the group's completion only if it is not in yet, then collects it. */
  private takeGroup(dev: number): ExpertOutput[] | null | Promise<ExpertOutput[] | null> {
    const g = this.groups[dev];
    this.groups[dev] = null;
    if (g === null || g === undefined) return this.collect(dev, null);
    const done = this.completions.group(g.tag);
    if (!(done instanceof Promise)) return this.collect(dev, g);
    const t0 = performance.now();
    return done.then(() => {
      this.stats.addTime('gpuWait', performance.now() - t0);
      return this.collect(dev, g);
    });
  }

  /** The group has finished on the device: take copies its outputs out without waiting. */
  private collect(dev: number, g: OpenGroup | null): ExpertOutput[] | null {
    const rows = g?.rows ?? [];
    const y = new Float32Array(rows.length * this.H);
    const st = this.timed('ffi', () => this.lib.take(this.engine, dev, y, rows.length, this.H));
    this.ledger.closeGroup(dev);
    if (st.code !== 0) {
      this.stats.failures.push(`take dev${dev}: ${st.message}`);
      return null;
    }
    return rows.map((r, i) => seal<ExpertOutput>({ ...r, y: y.subarray(i * this.H, (i + 1) * this.H) }));
  }

  /** Trunk matrix `index`'s int8 rows onto dev (a synchronous upload: landed on return). */
  private uploadDense(dev: number, index: number): RealTensor | null {
    const m = this.int8Trunk('uploadDense').matrices[index];
    if (m === undefined) throw new Error(`internal error: no trunk matrix #${index}`);
    const r = this.lib.upload(this.engine, dev, 1, m.rows, m.cols, m.q, m.scales);
    if (r.status.code !== 0) {
      this.stats.failures.push(`trunk matrix #${index} dev${dev}: ${r.status.message}`);
      return null;
    }
    const bytes = this.lib.footprint(m.q.byteLength) + this.lib.footprint(m.scales.byteLength);
    this.heldStale[dev] = true;
    return { ptr: r.tensor, shadow: this.ledger.alloc(dev, -1, index, 'dense', bytes), bytes };
  }

  private route(token: number, layer: number): RouteInfo {
    let r = this.trunk.route(layer, () => this.inputToken(token));
    const forced = this.opts.forcedRoutes?.[token]?.[layer];
    if (forced !== undefined) r = routeAmong(this.lib, this.trunk.routerLogits, forced, r.input);
    this.decided(token, layer, r);
    const input: Activation = { token, layer, x: r.input };
    const window = this.opts.preferWindow ?? 0;
    const eids = Array.from(r.ids);
    if (window <= 0 || forced !== undefined) return { token, layer, eids, input: seal(input) };
    const candidates = routeCandidates(this.lib, this.trunk.routerLogits, window);
    return { token, layer, eids, input: seal(input), candidates };
  }

  /** Prefer-resident routing: the engine's choice among the router's candidates. */
  private routeChoose(token: number, layer: number, eids: readonly number[]): RouteInfo {
    const was = this.routes.get(layer);
    if (was === undefined) throw new Error(`internal error: a route choice of layer ${layer} before its route`);
    const r = routeAmong(this.lib, this.trunk.routerLogits, eids, was.input);
    this.decided(token, layer, r);
    const input: Activation = { token, layer, x: r.input };
    return { token, layer, eids: Array.from(r.ids), input: seal(input) };
  }

  /** The layer's route as the run decided it (the reference is given the same). */
  private decided(token: number, layer: number, r: LayerRoute): void {
    this.routes.set(layer, r);
    const step = this.routing[token] ?? [];
    step[layer] = Array.from(r.ids);
    this.routing[token] = step;
  }

  syncUse(who: string, what: string): void {
    this.ledger.sync.use(who, what);
  }

  private cpuExpert(layer: number, eid: number, lent: RamRef | null, input: Activation): RealOutput {
    const ram = open<RealRam>(requireCpuWeights(layer, eid, lent));
    this.ram.check(ram, layer, eid, 'CPU expert');
    const y = new Float32Array(this.H);
    const st = this.lib.expertCpuRam(this.engine, ram.ptr, input.x, y);
    if (st.code !== 0) throw new Error(`CPU expert L${layer}E${eid}: ${st.message}`);
    return { token: input.token, layer: input.layer, eid, y };
  }

  private combine(token: number, layer: number, parts: readonly Contribution[]): void {
    const route = this.routes.get(layer);
    if (route === undefined) throw new Error(`internal error: combine of layer ${layer} before its route`);
    this.combined.record(token, layer, Array.from(route.ids), parts, (p) => open<RealOutput>(p.output));
    this.trunk.combine(
      route,
      parts.map((p) => open<RealOutput>(p.output).y),
    );
  }

  private backendShutdown(): undefined {
    this.leakedAtShutdown = { tensors: this.ledger.liveTensors, staging: this.ledger.liveStaging };
    const l = this.lib.ledger(this.engine);
    this.stats.nativeLedgerAtShutdown = l.status.code === 0 ? { count: l.count, bytes: l.bytes } : null;
    const ram = this.lib.ramStats(this.engine);
    this.stats.ramHostBytes = ram.hostBytes;
    this.stats.ramPinnedBytes = ram.pinnedBytes;
    this.ledger.backendShutdown = true;
    this.engineAlive = false;
    return undefined;
  }

  /**
   * After the run: waits (at most `seconds`) until every upload has landed, so the
   * stats count them all, then gives the RAM copies back and stops the queue.
   */
  async settle(seconds = 10): Promise<void> {
    const until = performance.now() + seconds * 1000;
    this.completions.drain();
    while (this.stats.landed < this.stats.uploads && performance.now() < until) {
      const left = this.stats.uploads - this.stats.landed;
      await this.lib.completionsWaitAsync(this.engine, left, Math.min(1000, Math.max(1, until - performance.now())));
      this.completions.drain();
    }
    if (this.stats.landed < this.stats.uploads) {
      this.stats.failures.push(`${this.stats.uploads - this.stats.landed} uploads never reported landing`);
    }
    this.completions.close();
    this.stats.completionWakeups = this.completions.wakeups;
    this.ram.releaseAll();
  }

  /** native completion waits that returned so far (each cost one event-loop turn) */
  get completionWakeups(): number {
    return this.completions.wakeups;
  }

  /** the engine is destroyed by its owner (the oracle), after the run */
  get alive(): boolean {
    return this.engineAlive;
  }

  describe(op: Op, result: unknown): string {
    switch (op.k) {
      case 'upload':
        return `upload L${op.layer}E${op.eid}.${op.part} dev${op.dev}${result === null ? ' FAILED' : ''}`;
      case 'issueGroup':
        return `issue dev${op.dev} [${op.rows.map((r) => r.eid).join(' ')}]${result === false ? ' FAILED' : ''}`;
      case 'takeGroup':
        return `take dev${op.dev}${result === null ? ' FAILED' : ''}`;
      case 'route':
        return `route t${op.token} L${op.layer} -> [${(result as RouteInfo).eids.join(' ')}]`;
      case 'cpuExpert':
        return `cpu L${op.layer}E${op.eid}`;
      case 'stage':
      case 'loadRam':
      case 'ramOf':
      case 'freeRam':
        return `${op.k} L${op.layer}E${op.eid}`;
      default:
        return op.k;
    }
  }
}
