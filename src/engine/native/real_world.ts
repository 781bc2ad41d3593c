/**
 * The real world: answers the ops of the tier and of the engine driver with the native
 * engine (through the binding) and the tiny MoE model.
 *
 * Every device-side op is mirrored into a shadow of the model's own ledger, so the
 * model's checkers see a real run exactly as they see a simulated one: a free of a
 * tensor an open group reads, a stale staging copy, an input write outside its block,
 * a leak at shutdown are the same violations with the same ids. The shadow never
 * changes what the engine does.
 */
import type { Contribution, ExpertOutput, GroupRow, Op, OpOf, OpResults, RamRef, RouteInfo, TensorHandle, WorldOpKind } from '../../ops.js';
import { FMT_I4_GROUP, type ExpertMatrix, type ExpertWeights, type LoadedModel } from '../../fixture/model_types.js';
import { MAX_GROUP_ROWS } from '../../tier/config.js';
import type { CheckedWorld } from '../../check/checked_world.js';
import { CombineLedger, requireCpuWeights } from '../../check/combine.js';
import { Ledger, type SimStaging, type SimTensor } from '../../check/ledger.js';
import { Violation } from '../../check/violation.js';
import type { NativeEngineLib, NativePtr } from './binding.js';
import { copyWeights, RealRamTable, type RealRam } from './real_ram.js';
import type { RealWorldApi } from './real_runtime.js';
import { readHeatFile, writeHeatFile } from './heat_file.js';
import { Trunk, type LayerRoute } from './trunk.js';

/** Each op a world answers, with its result type or a promise of it (a native call). */
type Handlers = { readonly [K in WorldOpKind]: (op: OpOf<K>) => OpResults[K] | Promise<OpResults[K]> };

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

interface RealTensor {
  readonly ptr: NativePtr;
  readonly shadow: SimTensor;
  /** device bytes it really takes (the checkers read it like a simulated tensor's) */
  readonly bytes: number;
}
interface RealStaging {
  readonly weights: ExpertWeights;
  readonly shadow: SimStaging;
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

export interface RealWorldOptions {
  readonly devices: number;
  readonly streaming: boolean;
  readonly heatPath: string | null;
  /** input tokens: the prompt, then each step's argmax */
  readonly prompt: readonly number[];
  readonly steps: number;
}

export interface RealStats {
  uploads: number;
  uploadBytes: number;
  uploadSeconds: number;
  failures: string[];
  nativeLedgerAtShutdown: { count: number; bytes: number } | null;
}

export class RealWorld implements RealWorldApi, CheckedWorld {
  readonly ledger: Ledger;
  readonly ram: RealRamTable;
  readonly trunk: Trunk;
  readonly combined: CombineLedger;
  readonly expectedCombines: number;
  leakedAtShutdown: { tensors: number; staging: number } | null = null;
  /** argmax of every step, and the final hidden state of every step (bit comparisons) */
  readonly argmax: number[] = [];
  readonly hidden: Float32Array[] = [];
  readonly stats: RealStats = { uploads: 0, uploadBytes: 0, uploadSeconds: 0, failures: [], nativeLedgerAtShutdown: null };
  private readonly block: Float32Array;
  private readonly routes = new Map<number, LayerRoute>();
  private readonly pendingRows: (RealOutput[] | null)[];
  private engineAlive = true;
  /** decode wall time: first route to last token */
  decodeStarted = 0;
  decodeEnded = 0;
  private readonly H: number;
  private readonly handlers: Handlers;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    private readonly model: LoadedModel,
    private readonly opts: RealWorldOptions,
  ) {
    this.H = model.shape.hidden;
    this.ledger = new Ledger(opts.devices, MAX_GROUP_ROWS, lib.reclaims(engine));
    this.ram = new RealRamTable(model, !opts.streaming);
    this.trunk = new Trunk(lib, model, opts.steps + 1);
    this.block = new Float32Array(opts.devices * MAX_GROUP_ROWS * this.H);
    this.pendingRows = new Array<RealOutput[] | null>(opts.devices).fill(null);
    this.expectedCombines = opts.steps * model.shape.layers;
    this.combined = new CombineLedger(model.shape.layers);
    this.handlers = this.makeHandlers();
  }

  deviceBytes(tensor: TensorHandle): number {
    return open<RealTensor>(tensor).bytes;
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
    return handler(op);
  }

  private makeHandlers(): Handlers {
    const L = this.ledger;
    return {
      memInfo: (op) => {
        const r = this.lib.memInfo(this.engine, op.dev);
        if (r.status.code !== 0) {
          this.stats.failures.push(`memInfo dev${op.dev}: ${r.status.message}`);
          return null;
        }
        return { free: r.free, total: r.total };
      },
      stage: (op) => {
        const ram = open<RealRam>(op.ram);
        this.ram.check(ram, op.layer, op.eid, 'staging copy');
        const staging: RealStaging = { weights: copyWeights(ram.weights), shadow: L.stage(op.layer, op.eid) };
        return seal(staging);
      },
      unstage: (op) => L.unstage(open<RealStaging>(op.staging).shadow),
      upload: async (op) => sealOrNull(await this.upload(op.dev, open<RealStaging>(op.staging), op.part, op.layer, op.eid)),
      free: (op) => {
        const t = open<RealTensor>(op.tensor);
        L.free(t.shadow, op.dev);
        if (!this.engineAlive) throw new Violation('MEM-DEVICE', `free of ${t.shadow.part} after the backend shut down`);
        const st = this.lib.free(this.engine, t.ptr);
        if (st.code !== 0) this.stats.failures.push(`free: ${st.message}`);
      },
      writeInput: (op) => {
        const a = open<Activation>(op.input);
        L.writeInput(op.dev, op.rowOffset, op.rows, { token: a.token, layer: a.layer });
        for (let r = 0; r < op.rows; r++) this.block.set(a.x, (op.rowOffset + r) * this.H);
      },
      issueGroup: (op) => this.issueGroup(op.dev, op.rowOffset, op.rows),
      takeGroup: async (op) => (await this.takeGroup(op.dev))?.map((o) => seal<ExpertOutput>(o)) ?? null,
      // the tiny model has no dense residents: the trunk runs on the CPU
      uploadDense: () => null,
      denseGemv: () => undefined,
      readHeat: () => (this.opts.heatPath === null ? null : readHeatFile(this.opts.heatPath, this.model.shape, this.stats.failures)),
      writeHeat: (op) => {
        if (this.opts.heatPath !== null) writeHeatFile(this.opts.heatPath, op.heat);
      },
      backendShutdown: () => this.backendShutdown(),
      route: (op) => {
        if (this.decodeStarted === 0) this.decodeStarted = performance.now();
        // the decode thread's native calls are synchronous: give the event loop a turn
        // each layer, so the uploader's finished native uploads are taken in, as a real
        // uploader thread would run beside the decode thread
        const { token, layer } = op;
        return new Promise<RouteInfo>((resolve) => setImmediate(() => resolve(this.route(token, layer))));
      },
      ramOf: (op) => sealOrNull(this.ram.current(op.layer, op.eid)),
      loadRam: (op) => seal(this.ram.load(op.layer, op.eid)),
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

  private async upload(dev: number, staging: RealStaging, part: 'gate' | 'up' | 'down', layer: number, eid: number): Promise<RealTensor | null> {
    this.ledger.checkUploadSource(staging.shadow, layer, eid);
    const m: ExpertMatrix = staging.weights[part];
    const started = performance.now();
    const r = await this.lib.uploadAsync(this.engine, {
      dev,
      fmt: m.format,
      rows: m.rows,
      cols: m.cols,
      // the ABI takes a group size only for the grouped format (0 otherwise)
      group: m.format === FMT_I4_GROUP ? m.group : 0,
      data: m.data,
      scales: m.scales,
    });
    this.stats.uploadSeconds += (performance.now() - started) / 1000;
    if (r.status.code !== 0) {
      this.stats.failures.push(`upload L${layer}E${eid}.${part} dev${dev}: ${r.status.message}`);
      return null;
    }
    this.stats.uploads++;
    this.stats.uploadBytes += m.data.byteLength + m.scales.byteLength;
    const bytes = this.lib.footprint(m.data.byteLength) + this.lib.footprint(m.scales.byteLength);
    return { ptr: r.tensor, shadow: this.ledger.alloc(dev, layer, eid, part, bytes), bytes };
  }

  private issueGroup(dev: number, rowOffset: number, rows: readonly GroupRow[]): boolean {
    const tensors = rows.map((r) => r.tensors.map((h) => open<RealTensor>(h)));
    this.ledger.openGroup(dev, tensors.flat().map((t) => t.shadow), `group on device ${dev}`);
    const x = this.block.subarray(rowOffset * this.H, (rowOffset + rows.length) * this.H);
    const ptrs = (i: number) => tensors.map((ts) => ts[i]?.ptr ?? null);
    const st = this.lib.issue(this.engine, dev, ptrs(0), ptrs(1), ptrs(2), x, this.H);
    if (st.code !== 0) {
      this.ledger.closeGroup(dev);
      this.stats.failures.push(`issue dev${dev}: ${st.message}`);
      return false;
    }
    this.pendingRows[dev] = rows.map((row, i) => {
      const src = this.ledger.inputRows[rowOffset + i];
      return { token: src?.token ?? -1, layer: src?.layer ?? -1, eid: row.eid, y: new Float32Array(0) };
    });
    return true;
  }

  private async takeGroup(dev: number): Promise<RealOutput[] | null> {
    const rows = this.pendingRows[dev] ?? [];
    this.pendingRows[dev] = null;
    const y = new Float32Array(rows.length * this.H);
    const st = await this.lib.takeAsync(this.engine, dev, y, rows.length, this.H);
    this.ledger.closeGroup(dev);
    if (st.code !== 0) {
      this.stats.failures.push(`take dev${dev}: ${st.message}`);
      return null;
    }
    return rows.map((r, i) => ({ ...r, y: y.subarray(i * this.H, (i + 1) * this.H) }));
  }

  private route(token: number, layer: number): RouteInfo {
    if (layer === 0) this.trunk.begin(this.inputToken(token));
    const r = this.trunk.route(layer);
    this.routes.set(layer, r);
    const input: Activation = { token, layer, x: r.input };
    return { token, layer, eids: Array.from(r.ids), input: seal(input) };
  }

  private cpuExpert(layer: number, eid: number, lent: RamRef | null, input: Activation): RealOutput {
    const ram = open<RealRam>(requireCpuWeights(layer, eid, lent));
    this.ram.check(ram, layer, eid, 'CPU expert');
    const w = ram.weights;
    const y = new Float32Array(this.H);
    const st = this.lib.expertCpu(
      {
        fmt: w.gate.format,
        hidden: this.H,
        width: this.model.shape.expertWidth,
        group: w.gate.format === FMT_I4_GROUP ? this.model.shape.groupSize : 0,
        gate: w.gate.data,
        gateS: w.gate.scales,
        up: w.up.data,
        upS: w.up.scales,
        down: w.down.data,
        downS: w.down.scales,
      },
      this.model.siluLut,
      input.x,
      y,
    );
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
    this.ledger.backendShutdown = true;
    this.engineAlive = false;
    return undefined;
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
