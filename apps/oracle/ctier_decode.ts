/**
 * The engine's use of the C tier in an oracle run: src/engine/driver.ts's init,
 * warmstart, decode loop and shutdown written again as one sequential caller of the C
 * tier's entry points (ctier_binding.ts), over the same native trunk, RAM copies and CPU
 * experts the TypeScript tier's oracle runs use.
 *
 * Why sequential: the C tier's own threads (its uploader) and the engine's workers are
 * native, so its blocking calls (fill_wait, note_block, take) wait on this thread and
 * always return; the warmstart's loaders run one after another, each handing its share
 * of the plan over (loader i takes plan entries i, i + n, ...), as the driver splits them.
 * Invariants, the driver's: the CPU computes exactly the experts whose mask bit is clear,
 * and after a take that reports a loss exactly the masked experts whose rows it did not
 * write (rows are pre-filled with NaN, a value no expert output of the model has); the
 * outputs are combined in route order; a RAM copy is freed only after tt_release_ram
 * said the tier forgot it; fill_wait runs only with no group open.
 */
import type { Status } from '../../src/engine/native/binding.js';
import type { CTierOnEngine } from '../../src/engine/native/ctier_binding.js';
import type { Int8Trunk } from '../../src/engine/native/int8_trunk.js';
import type { RealRam, RealRamTable } from '../../src/engine/native/real_ram.js';
import type { DecodeTrunk, LayerRoute } from '../../src/engine/native/trunk.js';
import type { DriverPlan, ShutdownPoint } from '../../src/engine/driver.js';
import { lmHeadIndex, trunkIndex, TRUNK_PARTS } from '../../src/engine/trunk_offers.js';

/** What the decode needs of the run: the tier, the engine's pieces, the plan. */
export interface CTierDecodeInput {
  readonly tier: CTierOnEngine;
  readonly ram: RealRamTable;
  readonly trunk: DecodeTrunk;
  /** the int8 trunk (its matrices through tt_dense_matmul), or null */
  readonly int8: Int8Trunk | null;
  /** trunk id of offer 0 (tt_init_result.trunk_base) */
  trunkBase: number;
  readonly plan: DriverPlan;
  readonly prompt: readonly number[];
  readonly hidden: number;
  readonly experts: number;
  /** the host faults: 0-based indices of the warmstart RAM loads that fail */
  readonly loadFails: readonly number[];
  /** a CPU expert: y = expert(ram, x) */
  readonly cpuExpert: (ram: RealRam, x: Float32Array, y: Float32Array) => void;
}

/** What the decode leaves for the row. */
export interface CTierDecodeOutput {
  readonly argmax: number[];
  readonly hidden: Float32Array[];
  readonly residencyByToken: number[];
  /** the tier's stats when shutdown began (an early one's, if the tier was off by the end; null: never live) */
  finalStats: ReturnType<CTierOnEngine['stats']>;
  trunkOnDevice: number;
  trunkOnCpu: number;
  decodeStarted: number;
  decodeEnded: number;
}

type Here =
  | { readonly phase: 'plan' | 'warmstart' | 'fill' }
  | { readonly phase: 'decode'; readonly token: number; readonly layer: number; readonly groupOpen: boolean };

const OK: Status = { code: 0, message: '' };

export class CTierDecode {
  readonly out: CTierDecodeOutput = {
    argmax: [],
    hidden: [],
    residencyByToken: [],
    finalStats: null,
    trunkOnDevice: 0,
    trunkOnCpu: 0,
    decodeStarted: 0,
    decodeEnded: 0,
  };
  private warmstartLoads = 0;
  private shutDown = false;

  constructor(private readonly d: CTierDecodeInput) {}

  /** The whole run after tt_init: warmstart, every step, shutdown. */
  run(started: boolean): void {
    const { plan } = this.d;
    if (started && plan.warmstart === 'plan') this.warmstartPlanned();
    else if (started && plan.warmstart === 'block') this.warmstartBlocking();
    else this.maybeShutdown({ phase: 'plan' });
    for (let step = 0; step < plan.tokens; step++) {
      if (this.out.decodeStarted === 0) this.out.decodeStarted = performance.now();
      for (let layer = 0; layer < plan.layers; layer++) this.decodeLayer(step, layer);
      if (this.d.int8 !== null) this.dense(lmHeadIndex(plan.layers));
      this.out.argmax.push(this.d.trunk.finish());
      this.out.hidden.push(this.d.trunk.x.slice());
      this.out.decodeEnded = performance.now();
      this.out.residencyByToken.push(this.d.tier.stats()?.resident ?? 0);
      if (step === plan.refillAfterToken) this.d.tier.fillWait();
    }
    this.out.finalStats = this.d.tier.stats() ?? this.out.finalStats;
    this.d.tier.shutdown();
  }

  /**
   * The driver's early shutdown, on this thread (the oracle's rows all shut down on the
   * caller), once. One "with a group open" comes at the first issue of its layer, at or
   * after its token, that opened a group: which issue opens one depends on which copies
   * the uploader thread landed by then, so the caller waits for the situation it was
   * arranged to reach rather than for a step that may find every expert on the CPU.
   */
  private maybeShutdown(here: Here, groupsOpened = false): void {
    const at: ShutdownPoint | null = this.d.plan.shutdownAt;
    if (at === null || this.shutDown || at.phase !== here.phase) return;
    if (at.phase === 'decode' && here.phase === 'decode') {
      if (at.layer !== here.layer || at.groupOpen !== here.groupOpen) return;
      if (at.groupOpen ? here.token < at.token || !groupsOpened : here.token !== at.token) return;
    }
    this.shutDown = true;
    // the row's numbers are the tier's when it stopped (the report's "resident" is when shutdown began)
    this.out.finalStats = this.d.tier.stats();
    this.d.tier.shutdown();
  }

  private warmstartPlanned(): void {
    const { tier, ram, plan } = this.d;
    this.maybeShutdown({ phase: 'plan' });
    const planned = tier.planFill(plan.layers * this.expertsPerLayer());
    const n = Math.max(1, plan.loaders);
    for (let i = 0; i < n; i++) {
      for (const key of planned.filter((_, j) => j % n === i)) {
        const fails = this.d.loadFails.includes(this.warmstartLoads++);
        tier.notePlanned(key.layer, key.eid, fails ? null : ram.load(key.layer, key.eid).ptr);
      }
      // the caller's shutdown "while loaders run": after the first loader handed its share over
      if (i === 0) this.maybeShutdown({ phase: 'warmstart' });
    }
    this.maybeShutdown({ phase: 'fill' });
    tier.fillWait();
    for (const key of planned) {
      const copy = ram.current(key.layer, key.eid);
      if (tier.releaseRam(key.layer, key.eid) && copy !== null) ram.release(copy);
    }
  }

  private warmstartBlocking(): void {
    const { tier, ram, plan } = this.d;
    this.maybeShutdown({ phase: 'plan' });
    for (let layer = 0; layer < plan.layers; layer++) {
      for (let eid = 0; eid < this.expertsPerLayer(); eid++)
        tier.noteBlock(layer, eid, ram.current(layer, eid)?.ptr ?? null);
      if (layer === 0) this.maybeShutdown({ phase: 'warmstart' });
    }
    this.maybeShutdown({ phase: 'fill' });
    tier.fillWait();
  }

  private expertsPerLayer(): number {
    return this.d.experts;
  }

  /** One trunk GEMV through the tier: on its device, else on the CPU from the same rows. */
  private dense(index: number): void {
    const int8 = this.d.int8;
    if (int8 === null) return;
    let onDevice = false;
    int8.onDevice(index, (x, y) => {
      onDevice = this.d.tier.denseMatmul(this.d.trunkBase + index, x, y);
      return OK;
    });
    if (onDevice) this.out.trunkOnDevice++;
    else {
      int8.onCpu(index);
      this.out.trunkOnCpu++;
    }
  }

  private route(step: number, layer: number): LayerRoute {
    const token = (): number => {
      if (step < this.d.prompt.length) return this.d.prompt[step] ?? 0;
      return this.out.argmax[step - 1] ?? 0;
    };
    const int8 = this.d.int8;
    if (int8 === null) return this.d.trunk.route(layer, token);
    int8.beginLayer(layer, token);
    this.dense(trunkIndex(layer, 'router'));
    return int8.route(layer);
  }

  private decodeLayer(step: number, layer: number): void {
    const { tier, hidden: H } = this.d;
    this.maybeShutdown({ phase: 'decode', token: step, layer, groupOpen: false });
    const route = this.route(step, layer);
    const k = route.ids.length;
    for (const eid of route.ids) this.noteRouted(layer, eid);
    const mask = new Uint8Array(k);
    const onDevice = tier.issue(layer, route.ids, route.input, mask);
    if (this.d.int8 !== null) this.attention(layer);
    const outputs = new Array<Float32Array | null>(k).fill(null);
    this.computeOnCpu(layer, route, outputs, (i) => mask[i] === 0);
    this.maybeShutdown({ phase: 'decode', token: step, layer, groupOpen: true }, onDevice > 0);
    const y = new Float32Array(k * H).fill(Number.NaN);
    const whole = tier.take(y, k, H);
    for (let i = 0; i < k; i++) {
      const row = y.subarray(i * H, (i + 1) * H);
      if (mask[i] === 1 && !Number.isNaN(row[0] ?? Number.NaN)) outputs[i] = row;
    }
    // take reported a lost group: its experts are computed here, and only those
    if (!whole) this.computeOnCpu(layer, route, outputs, (i) => mask[i] === 1 && outputs[i] === null);
    const missing = outputs.findIndex((o) => o === null);
    if (missing >= 0)
      throw new Error(
        `step ${step} layer ${layer}: route position ${missing} has no output (take neither gave nor lost it)`,
      );
    this.d.trunk.combine(route, outputs as Float32Array[]);
  }

  /** tt_note for a routed expert: the engine's RAM copy (streaming: a lending of the LRU's). */
  private noteRouted(layer: number, eid: number): void {
    const { tier, ram, plan } = this.d;
    if (!plan.streaming) {
      tier.note(layer, eid, ram.current(layer, eid)?.ptr ?? null);
      return;
    }
    const lent = ram.load(layer, eid);
    tier.note(layer, eid, lent.ptr);
    ram.release(lent);
  }

  private attention(layer: number): void {
    const int8 = this.d.int8;
    if (int8 === null) return;
    for (const part of TRUNK_PARTS.slice(1, 4)) this.dense(trunkIndex(layer, part));
    int8.attention(layer);
    this.dense(trunkIndex(layer, 'wo'));
  }

  private computeOnCpu(
    layer: number,
    route: LayerRoute,
    outputs: (Float32Array | null)[],
    wanted: (i: number) => boolean,
  ): void {
    const { ram, plan, hidden: H } = this.d;
    route.ids.forEach((eid, i) => {
      if (!wanted(i)) return;
      const held = plan.streaming ? null : ram.current(layer, eid);
      const copy = held ?? ram.load(layer, eid);
      const y = new Float32Array(H);
      this.d.cpuExpert(copy, route.input, y);
      outputs[i] = y;
      if (plan.streaming) ram.release(copy);
    });
  }
}
