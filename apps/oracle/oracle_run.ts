/**
 * One oracle run: a MoE model decoded by the native engine, with the same tier
 * and the same engine driver the simulator checks, under one budget / warmstart / fault
 * configuration. Returns the generated tokens, every step's final hidden state (for
 * bit-for-bit comparison with the CPU-only run) and the tier's numbers; the model's
 * checkers watch the whole run.
 */
import { join } from 'node:path';
import { scratchDir, type ScratchDir } from '../../src/input/cleanup.js';
import { environmentErrorOf } from '../../src/input/environment_error.js';
import { assemble, driverDecisions, standardCheckers, type Assembly } from '../../src/engine/assemble.js';
import { engineMain } from '../../src/engine/driver.js';
import { faultKey, NATIVE_FAULT_SITES, type FaultPlan } from '../../src/engine/fault_sites.js';
import type { NativeEngineLib, NativePtr } from '../../src/engine/native/binding.js';
import { RealWorld } from '../../src/engine/native/real_world.js';
import { runReal } from '../../src/engine/native/real_runtime.js';
import { LATER_FEATURES_OFF, type RunSpec } from '../../src/engine/run_spec.js';
import { ENGINE_DEFAULTS, type ExpertFormat } from '../../src/tier/config.js';
import type { Tier } from '../../src/tier/tier.js';
import type { Checker } from '../../src/check/checker.js';
import type { MarkOp, Op } from '../../src/ops.js';
import { FMT_I4_GROUP, TRUNK_INT8, type EngineModel } from '../../src/fixture/model_types.js';
import type { RealStats } from '../../src/engine/native/real_stats.js';
import { trunkOffers } from '../../src/engine/trunk_offers.js';
import { trunkCharge } from '../../src/tier/trunk_place.js';
import type { TrunkOffer } from '../../src/tier/config.js';
import {
  COVERAGE_MARKS as COVERAGE_ORDER,
  CoverageChecker,
  type CoverageMark,
} from '../../src/check/checkers/coverage.js';

/**
 * One oracle run: a subset of the scenario shape both worlds share, a name, and whether to
 * read the heat file an earlier run of the same matrix left (a warm start). Faults: at
 * most one, on a site the native engine can fail (upload, issue, take; its index counts
 * that site's calls on device 0), or on the host side: a warmstart RAM load (the loader
 * hands the tier null weights) or a staging copy, counted over the run.
 */
export type OracleRunSpec = Pick<
  RunSpec,
  'budgetExperts' | 'warmstart' | 'loaders' | 'wantSwaps' | 'swapPeriod' | 'streaming' | 'shutdownAt'
> &
  Partial<
    Pick<
      RunSpec,
      | 'syncUploads'
      | 'evictCapacity'
      | 'evictedPoll'
      | 'replan'
      | 'prefer'
      | 'statsThread'
      | 'initRacer'
      | 'secondShutdown'
    >
  > & {
    readonly name: string;
    readonly faults: FaultPlan;
    readonly useHeatFile: boolean;
    /** streaming mode: experts per layer the RAM LRU holds (default: every expert) */
    readonly lruPerLayer?: number;
    /** the int8 trunk (models with trunkFormat 1): offered to the tier's placer with room
     *  for all of it or half of it, or not offered ('cpu', the default: every trunk GEMV on
     *  the CPU, from the same int8 rows) */
    readonly trunk?: TrunkResidency;
    /** a slow bus: every asynchronous copy waits this long first (TIERLAB_CPU_COPY_DELAY_US,
     *  TIERLAB_CUDA_COPY_DELAY_US, TIERLAB_VK_COPY_DELAY_US; read at engine creation), so
     *  groups really meet tensors still on their way */
    readonly copyDelayUs?: number;
    /** a slow device: every group waits this long before it runs (TIERLAB_CPU_GROUP_DELAY_US,
     *  TIERLAB_CUDA_GROUP_DELAY_US, TIERLAB_VK_GROUP_DELAY_US), so takes really meet groups
     *  still computing */
    readonly groupDelayUs?: number;
    /** false: no device memory made ready before the run (the default reserves the
     *  budgets, as an engine sizes its buffers at start-up): uploads meet fresh blocks */
    readonly reserve?: boolean;
    /** the upload ring's capacity (default the engine's QCAP, 48): small, so it fills */
    readonly ringCapacity?: number;
    /** the early shutdown comes at the first layer-0 issue whose LFRU tick enqueued a swap
     *  (found by a run of the same spec without it), with that group open: a swap is then
     *  parked on the open group when shutdown begins */
    readonly shutdownAtFirstSwap?: boolean;
    /** fill_wait after this decode token (a refill while decoding; default none) */
    readonly refillAfterToken?: number;
    /** the refill comes after the first token whose layer-0 issue enqueued a swap (found as
     *  for shutdownAtFirstSwap): fill_wait then waits for a swap that was parked on a group */
    readonly refillAtFirstSwap?: boolean;
    /** a situation the run is arranged to reach (a coverage mark): the run fails without it */
    readonly arranged?: CoverageMark;
    /** the routing decisions of an earlier run, per step and layer, given to this one (its
     *  hidden states must then be bit-identical to that run's, whatever is resident) */
    readonly forcedRoutes?: readonly (readonly (readonly number[])[])[];
  };

export type TrunkResidency = 'cpu' | 'all' | 'half';

export interface OracleRunResult {
  readonly spec: OracleRunSpec;
  readonly ok: boolean;
  readonly problem: string | null;
  readonly generated: number[];
  readonly hidden: Float32Array[];
  readonly residentAtEnd: number;
  /** experts resident after each generated token */
  readonly residencyByToken: readonly number[];
  readonly hits: number;
  readonly misses: number;
  readonly uploads: number;
  readonly uploadFailures: number;
  readonly swaps: number;
  /** the tier swapped in this run (false on a backend that does not reclaim: fill once) */
  readonly swapsOn: boolean;
  readonly uploadGBps: number;
  readonly tokPerSec: number;
  readonly decodeSeconds: number;
  readonly notes: string[];
  readonly nativeLedgerAtShutdown: { count: number; bytes: number } | null;
  /** everything the real world measured (null when the run could not start) */
  readonly stats: RealStats | null;
  /** streaming: reads the RAM LRU served, and reads of the model file (null: no LRU) */
  readonly lru: { readonly hits: number; readonly misses: number } | null;
  /** trunk GEMVs computed on a device, and on the CPU (0, 0: a float32 trunk) */
  readonly trunkOnDevice: number;
  readonly trunkOnCpu: number;
  /** trunk matrices resident when shutdown began, of those offered */
  readonly trunkResident: number;
  readonly trunkOffered: number;
  /** the hard-to-reach situations the run reached (coverage marks) */
  readonly situations: readonly CoverageMark[];
  /** groups the engine issued, and of them those that read a tensor still uploading
   *  (tl_group_stats; null: not read) */
  readonly groups: { readonly issued: number; readonly metUploads: number } | null;
  /** the route of every step and layer, as the run decided it */
  readonly routing: readonly (readonly number[])[][];
}

export interface OracleContext {
  readonly lib: NativeEngineLib;
  readonly model: EngineModel;
  readonly devices: readonly number[];
  /** generated tokens to check */
  readonly tokens: number;
  /** directory where heat files live across the runs of one oracle invocation */
  readonly heatDir: string;
  /** per device, 0: the backend's own memory (the CPU backend's then grows on demand) */
  readonly capacityBytes?: number;
  /** more checkers for the run (probes that time the run, for the benchmark) */
  readonly probes?: readonly Checker[];
  /**
   * The benchmark's split of where a fill's time goes: the same run watched by the probes
   * alone, no checker (never a verdict: such a run checks nothing but the tokens).
   */
  readonly unchecked?: boolean;
}

/** heat-file folders not yet removed: scratch folders of the one clean-up registry */
const heatDirs = new Map<string, ScratchDir>();

export function newHeatDir(): string {
  const scratch = scratchDir('heat-');
  heatDirs.set(scratch.dir, scratch);
  return scratch.dir;
}

export function removeHeatDir(dir: string): void {
  heatDirs.get(dir)?.remove();
  heatDirs.delete(dir);
}

/** records the residency when shutdown begins (the end of decoding) */
/** Residency when shutdown begins (the end of decoding), and after every token. */
function residencyProbe(tier: Tier): Checker & { resident: number; byToken: number[] } {
  const count = (): number => {
    let n = 0;
    for (const row of tier.st.slots) for (const s of row) if (s.resident) n++;
    return n;
  };
  const probe = {
    resident: 0,
    byToken: [] as number[],
    onMark(_rt: unknown, _th: unknown, op: MarkOp) {
      if (op.k === 'call' && op.call.fn === 'shutdown' && probe.resident === 0) probe.resident = count();
    },
    onOp(_rt: unknown, _th: unknown, op: Op) {
      if (op.k === 'finishToken') probe.byToken.push(count());
    },
  };
  return probe;
}

/** Trunk GEMVs by where they ran, and trunk residency when shutdown begins. */
function trunkProbe(tier: Tier): Checker & { device: number; cpu: number; resident: number } {
  const probe = {
    device: 0,
    cpu: 0,
    resident: 0,
    onMark(_rt: unknown, _th: unknown, op: MarkOp) {
      if (op.k === 'ret' && op.ret.fn === 'dense_matmul' && op.ret.value) probe.device++;
      if (op.k === 'call' && op.call.fn === 'shutdown' && probe.resident === 0)
        probe.resident = tier.st.dense.filter((d) => d !== null).length;
    },
    onOp(_rt: unknown, _th: unknown, op: Op) {
      if (op.k === 'denseCpu') probe.cpu++;
    },
  };
  return probe;
}

/** Creates the engine with the run's slow bus and device, if any (the backends read
 *  them at creation). */
export function createEngine(ctx: OracleContext, spec: OracleRunSpec): ReturnType<NativeEngineLib['createEngine']> {
  const delays: [string, number | undefined][] = [
    ['TIERLAB_CPU_COPY_DELAY_US', spec.copyDelayUs],
    ['TIERLAB_CUDA_COPY_DELAY_US', spec.copyDelayUs],
    ['TIERLAB_VK_COPY_DELAY_US', spec.copyDelayUs],
    ['TIERLAB_CPU_GROUP_DELAY_US', spec.groupDelayUs],
    ['TIERLAB_CUDA_GROUP_DELAY_US', spec.groupDelayUs],
    ['TIERLAB_VK_GROUP_DELAY_US', spec.groupDelayUs],
  ];
  const vars = delays.map(([v]) => v);
  const saved = vars.map((v) => process.env[v]);
  for (const [v, us] of delays) if (us !== undefined) process.env[v] = String(us);
  try {
    return ctx.lib.createEngine(ctx.devices, ctx.capacityBytes ?? 0);
  } finally {
    vars.forEach((v, i) => {
      const was = saved[i];
      if (was === undefined) delete process.env[v];
      else process.env[v] = was;
    });
  }
}

/** Swap enqueues at layer-0 issues, as the decode step where each happened. */
function swapProbe(): Checker & { steps: number[] } {
  let step = 0;
  const probe = {
    steps: [] as number[],
    onMark(_rt: unknown, _th: unknown, op: MarkOp) {
      if (op.k === 'mark' && op.what === 'swap-enqueued') probe.steps.push(step);
    },
    onOp(_rt: unknown, _th: unknown, op: Op) {
      if (op.k === 'finishToken') step++;
    },
  };
  return probe;
}

export async function runOracle(ctx: OracleContext, spec: OracleRunSpec): Promise<OracleRunResult> {
  if (spec.shutdownAtFirstSwap !== true && spec.refillAtFirstSwap !== true) return runOnce(ctx, spec);
  // the same run without the early shutdown or the refill says where its first swap comes
  const probe = swapProbe();
  const plain = {
    ...spec,
    shutdownAtFirstSwap: false,
    refillAtFirstSwap: false,
    shutdownAt: null,
    refillAfterToken: undefined,
    arranged: undefined,
  };
  const first = await runOnce({ ...ctx, probes: [...(ctx.probes ?? []), probe] }, plain);
  return arrangedAtFirstSwap(spec, first, probe.steps[0], (s) => runOnce(ctx, s));
}

/**
 * An arranged row once its plain run is done: rerun with the refill or the shutdown at
 * `step`, the decode step of the first swap the plain run enqueued (either tier's runner:
 * `rerun`). A backend that does not reclaim fills once: the tier never swaps, there is
 * nothing to arrange, and the plain run is the run.
 */
export function arrangedAtFirstSwap<R>(
  spec: OracleRunSpec,
  first: OracleRunResult,
  step: number | undefined,
  rerun: (spec: OracleRunSpec) => R,
): R | OracleRunResult {
  if (first.ok && !first.swapsOn)
    return { ...first, spec, notes: [...first.notes, 'no swaps on a fill-once backend: nothing to arrange'] };
  if (!first.ok || step === undefined)
    return emptyResult(
      spec,
      first.ok
        ? 'arranged: the run has no swap to arrange around'
        : `arranged: the run without it failed: ${first.problem}`,
    );
  if (spec.refillAtFirstSwap === true) return rerun({ ...spec, refillAfterToken: step });
  return rerun({
    ...spec,
    shutdownAt: { phase: 'decode', token: step, layer: 0, groupOpen: true, thread: 'caller' },
  });
}

async function runOnce(ctx: OracleContext, spec: OracleRunSpec): Promise<OracleRunResult> {
  const { lib, model } = ctx;
  const prompt = model.prompt;
  const steps = prompt.length + ctx.tokens - 1;
  const created = createEngine(ctx, spec);
  const fail = (problem: string): OracleRunResult => emptyResult(spec, problem);
  if (created.status.code !== 0) return fail(`engine create: ${created.status.message}`);
  const engine = created.engine;
  try {
    const built = prepareEngine(ctx, spec, engine, steps);
    if (typeof built === 'string') return fail(built);
    const { cfg, tier, plan } = built;
    const world = new RealWorld(lib, engine, model, {
      devices: cfg.devices,
      ram: spec.streaming
        ? { kind: 'lru', lruPerLayer: spec.lruPerLayer ?? model.shape.experts }
        : { kind: 'resident' },
      heatPath: spec.useHeatFile ? join(ctx.heatDir, 'heat.qth') : null,
      prompt,
      steps,
      hostFaults: spec.faults,
      preferWindow: spec.prefer?.window ?? 0,
      ...(spec.forcedRoutes !== undefined ? { forcedRoutes: spec.forcedRoutes } : {}),
    });
    const checkCtx = { st: tier.st, world };
    const probe = residencyProbe(tier);
    const trunk = trunkProbe(tier);
    const coverage = new CoverageChecker(checkCtx);
    const faultFree =
      spec.faults.uploadFails.length + spec.faults.loadFails.length + spec.faults.stageFails.length === 0;
    const checkers: Checker[] = [
      ...(ctx.unchecked === true
        ? []
        : standardCheckers(checkCtx, {
            faultFree,
            refinement: true,
            wantSwaps: spec.wantSwaps,
            watchSlots: true,
            driver: driverDecisions(plan),
          })),
      probe,
      trunk,
      coverage,
      ...(ctx.probes ?? []),
    ];
    const outcome = await runReal(() => engineMain(tier, plan), world, checkers, { traced: false });
    await world.settle();
    // a full disk or a read-only folder under the heat file is the machine's failure, not
    // the engine's: the whole command ends on it (exit 74), never a run judged FAIL
    const environment = outcome.error !== null ? environmentErrorOf(outcome.error, ctx.heatDir) : null;
    if (environment !== null) throw environment;
    const c = tier.st.counters;
    const decodeSeconds = Math.max(1e-9, (world.decodeEnded - world.decodeStarted) / 1000);
    // a real run has no injected spurious wakeup: that mark is the simulator's
    const situations = COVERAGE_ORDER.filter((m) => coverage.reached.has(m) && m !== 'spurious-wakeup');
    const missed = spec.arranged !== undefined && !coverage.reached.has(spec.arranged);
    const groups = groupStats(lib, engine, world.stats.failures);
    return {
      spec,
      ok: outcome.ok && !missed,
      problem: problemOf(outcome, missed ? (spec.arranged ?? null) : null),
      generated: world.argmax.slice(prompt.length - 1),
      hidden: world.hidden,
      residentAtEnd: probe.resident,
      residencyByToken: probe.byToken.slice(prompt.length - 1),
      hits: c.hits,
      misses: c.misses,
      uploads: c.uploads,
      uploadFailures: c.uploadFailures,
      swaps: c.swaps,
      swapsOn: cfg.swaps,
      uploadGBps: world.stats.uploadGBps,
      tokPerSec: world.decodeEnded > 0 ? ctx.tokens / decodeSeconds : 0,
      decodeSeconds,
      notes: world.stats.failures,
      nativeLedgerAtShutdown: world.stats.nativeLedgerAtShutdown,
      stats: world.stats,
      lru: world.ram.lru === null ? null : { hits: world.ram.lru.hits, misses: world.ram.lru.misses },
      trunkOnDevice: trunk.device,
      trunkOnCpu: trunk.cpu,
      trunkResident: trunk.resident,
      trunkOffered: cfg.trunk.length,
      situations,
      groups,
      routing: world.routing,
    };
  } finally {
    const d = lib.destroy(engine);
    if (d.code !== 0) process.stderr.write(`oracle: engine destroy: ${d.message}\n`);
  }
}

/** The engine made ready for a run: the SiLU table, the armed faults, the assembly, and
 *  the budgets' device memory reserved (or what failed, as a line). */
export function prepareEngine(
  ctx: OracleContext,
  spec: OracleRunSpec,
  engine: NativePtr,
  steps: number,
): Assembly | string {
  const { lib, model } = ctx;
  const lut = lib.setLut(engine, model.siluLut);
  if (lut.code !== 0) return `set LUT: ${lut.message}`;
  for (const site of NATIVE_FAULT_SITES) {
    for (const after of spec.faults[faultKey(site)]) {
      const armed = lib.faultArm(engine, site, 0, after);
      if (armed.code !== 0) return `fault arm: ${armed.message}`;
    }
  }
  const built = assembleRun(ctx, spec, lib.reclaims(engine), steps);
  if (typeof built === 'string') return built;
  // the device memory the budgets allow is made ready before the run, as an engine
  // sizes its expert buffers at start-up: no upload waits for the driver's allocator
  for (const [dev, budget] of built.cfg.budgetBytes.entries()) {
    if (budget === 'auto' || budget === 0 || spec.reserve === false) continue;
    const reserved = lib.tensorReserve(engine, dev, budget);
    if (reserved.code !== 0) return `reserve: ${reserved.message}`;
  }
  return built;
}

/** What went wrong in a run, in a line: a violation, an error, a missed arranged situation. */
export function groupStats(lib: NativeEngineLib, engine: NativePtr, failures: string[]): OracleRunResult['groups'] {
  const g = lib.groupStats(engine);
  if (g.status.code === 0) return { issued: g.issued, metUploads: g.metUploads };
  failures.push(`group stats: ${g.status.message}`);
  return null;
}

function problemOf(outcome: Awaited<ReturnType<typeof runReal>>, missed: CoverageMark | null): string | null {
  if (outcome.violation !== null) return `${outcome.violation.property}: ${outcome.violation.detail}`;
  if (outcome.error !== null) return `error: ${outcome.error.message}`;
  return missed !== null ? `arranged: the run never reached ${missed}` : null;
}

/** The one assembly, fed with the model's tensor sizes and the library's allocator rule. */
function assembleRun(ctx: OracleContext, spec: OracleRunSpec, reclaims: boolean, steps: number): Assembly | string {
  const { lib, model } = ctx;
  const e0 = model.experts[0]?.[0];
  if (e0 === undefined) return 'model has no experts';
  const weightBytes = [e0.gate.dataBytes, e0.up.dataBytes, e0.down.dataBytes] as const;
  const scaleBytes = [4 * e0.gate.nscales, 4 * e0.up.nscales, 4 * e0.down.nscales] as const;
  const footprint = [...weightBytes, ...scaleBytes].reduce((a, b) => a + lib.footprint(b), 0);
  const int8Trunk = model.shape.trunkFormat === TRUNK_INT8;
  const offers = int8Trunk && (spec.trunk ?? 'cpu') !== 'cpu' ? trunkOffers(model.shape) : [];
  if (!int8Trunk && (spec.trunk ?? 'cpu') !== 'cpu')
    return `${model.name} has a float32 trunk: there is no int8 trunk to place (trunk '${spec.trunk}')`;
  const built = assemble({
    spec: {
      ...LATER_FEATURES_OFF,
      ...spec,
      ringCapacity: spec.ringCapacity ?? ENGINE_DEFAULTS.ringCapacity,
      decayPeriod: ENGINE_DEFAULTS.decayPeriod,
      denseBytes: 0,
      refillAfterToken: spec.refillAfterToken ?? -1,
      denseWhileGroupOpen: false,
      initTwice: false,
      runs: 1,
      startTick: 0,
    },
    shape: { layers: model.shape.layers, experts: model.shape.experts, topk: model.shape.topk },
    devices: ctx.devices.length,
    reclaims,
    expertFormat: formatOf(e0.gate.format),
    groupSize: e0.gate.format === FMT_I4_GROUP ? model.shape.groupSize : 0,
    weightBytes,
    scaleBytes,
    ramCapacity: spec.streaming ? (spec.lruPerLayer ?? model.shape.experts) : model.shape.experts,
    expertFootprint: footprint,
    reserveExperts: 0,
    heatFile: spec.useHeatFile,
    tokens: steps,
    trunk: offers,
    trunkThroughTier: int8Trunk,
    budgetExtraBytes: trunkRoom(offers, spec.trunk ?? 'cpu', ctx.devices.length),
  });
  // the tier's allocator rule and the library's must agree, or budgets mean nothing
  if (built.tier.st.expBytes !== footprint) {
    return `allocator rule mismatch: the tier charges ${built.tier.st.expBytes} bytes per expert, the library ${footprint}`;
  }
  return built;
}

function formatOf(f: number): ExpertFormat {
  return f === 2 ? 2 : f === 4 ? 4 : f === 8 ? 8 : 1;
}

/** Budget bytes per device made for the trunk: all of it, or half of it, spread over
 *  the devices (plus the largest matrix, so the placer's greedy spread always fits). */
function trunkRoom(offers: readonly TrunkOffer[], share: TrunkResidency, devices: number): number {
  if (offers.length === 0 || share === 'cpu') return 0;
  const charges = offers.map(trunkCharge);
  const total = charges.reduce((a, b) => a + b, 0) * (share === 'all' ? 1 : 0.5);
  return devices === 1 ? Math.ceil(total) : Math.ceil(total / devices) + Math.max(...charges);
}

export function emptyResult(spec: OracleRunSpec, problem: string): OracleRunResult {
  return {
    spec,
    ok: false,
    problem,
    generated: [],
    hidden: [],
    residentAtEnd: 0,
    residencyByToken: [],
    hits: 0,
    misses: 0,
    uploads: 0,
    uploadFailures: 0,
    swaps: 0,
    swapsOn: false,
    uploadGBps: 0,
    tokPerSec: 0,
    decodeSeconds: 0,
    notes: [],
    nativeLedgerAtShutdown: null,
    stats: null,
    lru: null,
    trunkOnDevice: 0,
    trunkOnCpu: 0,
    trunkResident: 0,
    trunkOffered: 0,
    situations: [],
    groups: null,
    routing: [],
  };
}
