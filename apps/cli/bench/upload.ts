/**
 * `npm run bench -- --only upload`: the tier's uploads against the raw copy of the same
 * library, in one run, on a generated model with realistic experts (bench_model.ts).
 *
 * Measured, in this order:
 *  1. raw host-to-device copies through tl_copy_bandwidth (256 MiB x 5, pinned and
 *     pageable; on the CPU backend both are a memcpy);
 *  2. the real world's per-op overhead on the tiny fixture: one upload op, one issue+take
 *     round trip, in microseconds (JavaScript, binding and native call together);
 *  3. a CPU-only decode, then a warmstart that plans every expert followed by the same
 *     decode with everything resident (the oracle's run, the same tier, driver and
 *     checkers). The fill is timed on the engine's clock from plan_fill's call to
 *     fill_wait's return, and to the last upload's landing (whichever is later: the
 *     bytes are on the device then); its rate over the raw pinned copy is the ratio.
 * Both decodes must give the same tokens and bit-identical hidden states. Decode time is
 * split into trunk, CPU experts, waiting on the device, and other native calls (ffi).
 */
import { tmpdir } from 'node:os';
import type { NativeEngineLib, NativePtr } from '../../../src/engine/native/binding.js';
import { scratchDir } from '../../../src/input/cleanup.js';
import { RealWorld } from '../../../src/engine/native/real_world.js';
import type { RealStats } from '../../../src/engine/native/real_stats.js';
import { NO_FAULTS } from '../../../src/engine/fault_sites.js';
import type { Checker } from '../../../src/check/checker.js';
import { loadModel } from '../../../src/fixture/container.js';
import { engineModelOf } from '../../../src/fixture/engine_model.js';
import type { EngineModel } from '../../../src/fixture/model_types.js';
import type {
  ActivationRef,
  GroupRow,
  MarkOp,
  Op,
  RamRef,
  RouteInfo,
  StagingCopy,
  TensorHandle,
} from '../../../src/ops.js';
import { runOracle, type OracleContext, type OracleRunResult, type OracleRunSpec } from '../../oracle/oracle_run.js';
import { writeBenchModel, type BenchModelOptions } from './bench_model.js';
import { shownPath } from '../../report/shown_path.js';
import { uploadTargets } from './upload_targets.js';

const RAW_BYTES = 256 * 2 ** 20;
const RAW_REPS = 5;
const OP_SAMPLES = 2000;
/** rounds of OP_SAMPLES: one to warm up, the best of the rest counts */
const OP_ROUNDS = 4;

export interface UploadBenchOptions {
  readonly lib: NativeEngineLib;
  readonly device: number;
  readonly expertGiB: number;
  /** experts' width (F): with hidden 2048 and int4 grouped 64, 768 gives tensors of 0.84 MiB, 1792 of 1.97 MiB */
  readonly width: number;
  /** the model's hidden size (2048; a small one with a small width makes the copies cost
   *  nothing, so a fill measures the tier's own work per expert) */
  readonly hidden: number;
  /** the unchecked and the warm checked fills, this many times each (their medians reported) */
  readonly fills: number;
  readonly tokens: number;
  readonly log: (line: string) => void;
}

export interface DecodeRow {
  readonly name: string;
  readonly tokPerSec: number;
  readonly seconds: number;
  /** milliseconds per bucket, the rest of the decode's wall time in `other` */
  readonly ms: Readonly<Record<'trunk' | 'cpuExperts' | 'gpuWait' | 'ffi' | 'other', number>>;
}

export interface RepeatedFill {
  readonly landedMs: number;
  readonly gbps: number;
  readonly ratioToPinned: number;
}

export interface UploadSection {
  readonly backend: string;
  readonly library: string;
  readonly model: { layers: number; experts: number; tensorMiB: number; expertGiB: number };
  readonly raw: { bytes: number; reps: number; pinnedGBps: number; pageableGBps: number };
  readonly perOp: {
    uploadMicros: number;
    issueTakeMicros: number;
    samples: number;
    rounds: number;
    wakeupsPerRoundTrip: number;
  };
  readonly fill: {
    bytes: number;
    uploads: number;
    fillWaitMs: number;
    landedMs: number;
    gbps: number;
    ratioToPinned: number;
    ratioToPageable: number;
  };
  /** the same warmstart with no checker watching: what the checkers cost the fill */
  readonly fillUnchecked: RepeatedFill;
  /** the same warmstart once more with every checker, now that the JIT has compiled the
   *  tier, the runtime and the checkers (the first fill of a process runs them cold) */
  readonly fillWarm: RepeatedFill;
  /** microseconds per expert from plan_fill to the last landing: the first fill of the
   *  process, and the medians of the warm checked and the unchecked fills */
  readonly perExpert: {
    readonly first: number;
    readonly warmChecked: number;
    readonly unchecked: number;
    readonly fills: number;
  };
  readonly decode: readonly DecodeRow[];
  readonly residentOverCpu: number;
  readonly identical: boolean;
  readonly memory: {
    rssMiB: number;
    arrayBuffersMiB: number;
    heapUsedMiB: number;
    ramHostMiB: number;
    ramPinnedMiB: number;
  };
  readonly problems: readonly string[];
}

const MiB = 2 ** 20;

function withEngine<T>(lib: NativeEngineLib, device: number, capacity: number, body: (eng: NativePtr) => T): T {
  const created = lib.createEngine([device], capacity);
  if (created.status.code !== 0) throw new Error(`engine create: ${created.status.message}`);
  try {
    return body(created.engine);
  } finally {
    lib.destroy(created.engine);
  }
}

function rawCopies(lib: NativeEngineLib, device: number): UploadSection['raw'] {
  return withEngine(lib, device, 0, (eng) => {
    const pinned = lib.copyBandwidth(eng, 0, RAW_BYTES, RAW_REPS, true);
    const pageable = lib.copyBandwidth(eng, 0, RAW_BYTES, RAW_REPS, false);
    for (const r of [pinned, pageable]) if (r.status.code !== 0) throw new Error(`raw copy: ${r.status.message}`);
    return { bytes: RAW_BYTES, reps: RAW_REPS, pinnedGBps: pinned.gbps, pageableGBps: pageable.gbps };
  });
}

/** The world's ops as the tier would yield them, for the per-op measurements. */
function exec<T>(world: RealWorld, op: Op): T {
  return world.exec(op) as T;
}

/** One upload op, and one issue+take round trip, on the tiny fixture's experts. */
async function perOpOverhead(lib: NativeEngineLib, device: number): Promise<UploadSection['perOp']> {
  const model = engineModelOf(loadModel('fixtures/tiny-moe'));
  const created = lib.createEngine([device], 0);
  if (created.status.code !== 0) throw new Error(`engine create: ${created.status.message}`);
  const eng = created.engine;
  try {
    if (lib.setLut(eng, model.siluLut).code !== 0) throw new Error('set LUT failed');
    const world = new RealWorld(lib, eng, model, {
      devices: 1,
      ram: { kind: 'resident' },
      heatPath: null,
      prompt: model.prompt,
      steps: 1,
    });
    const ram = exec<RamRef>(world, { k: 'ramOf', layer: 0, eid: 0 });
    const staging = exec<StagingCopy>(world, { k: 'stage', ram, layer: 0, eid: 0 });
    // the first round warms the JIT up; the best of the others is reported (other jobs
    // on the machine only ever slow a round down)
    let uploadMicros = Infinity;
    for (let round = 0; round < OP_ROUNDS; round++) {
      const made: TensorHandle[] = [];
      const t0 = performance.now();
      for (let i = 0; i < OP_SAMPLES; i++)
        made.push(exec<TensorHandle>(world, { k: 'upload', dev: 0, staging, part: 'gate', layer: 0, eid: 0 }));
      const us = ((performance.now() - t0) * 1000) / OP_SAMPLES;
      if (round > 0) uploadMicros = Math.min(uploadMicros, us);
      for (const tensor of made) exec(world, { k: 'free', dev: 0, tensor });
    }
    const tensors = (['gate', 'up', 'down'] as const).map((part) =>
      exec<TensorHandle>(world, { k: 'upload', dev: 0, staging, part, layer: 0, eid: 0 }),
    );
    exec(world, { k: 'unstage', staging });
    const route = exec<RouteInfo>(world, { k: 'route', token: 0, layer: 0 });
    const input: ActivationRef = route.input;
    const rows: GroupRow[] = [{ layer: 0, eid: 0, tensors }];
    const samples = OP_SAMPLES / 4;
    let issueTakeMicros = Infinity;
    let wakeups = 0;
    for (let round = 0; round < OP_ROUNDS; round++) {
      const before = world.completionWakeups;
      const t1 = performance.now();
      for (let i = 0; i < samples; i++) {
        exec(world, { k: 'writeInput', dev: 0, rowOffset: 0, rows: 1, input });
        exec(world, { k: 'issueGroup', dev: 0, rowOffset: 0, rows });
        const taken = world.exec({ k: 'takeGroup', dev: 0, rows });
        if (taken instanceof Promise) await taken;
      }
      const us = ((performance.now() - t1) * 1000) / samples;
      if (round > 0 && us < issueTakeMicros) {
        issueTakeMicros = us;
        wakeups = world.completionWakeups - before;
      }
    }
    for (const tensor of tensors) exec(world, { k: 'free', dev: 0, tensor });
    await world.settle();
    return { uploadMicros, issueTakeMicros, samples, rounds: OP_ROUNDS - 1, wakeupsPerRoundTrip: wakeups / samples };
  } finally {
    lib.destroy(eng);
  }
}

/** Engine-clock times of plan_fill's call and of fill_wait's first return after it. */
function fillProbe(lib: NativeEngineLib): Checker & { planNs: number; fillWaitNs: number } {
  const probe = {
    planNs: 0,
    fillWaitNs: 0,
    onMark(_rt: unknown, _th: unknown, op: MarkOp) {
      if (op.k === 'call' && op.call.fn === 'plan_fill' && probe.planNs === 0) probe.planNs = lib.clockNs();
      if (op.k === 'ret' && op.ret.fn === 'fill_wait' && probe.planNs > 0 && probe.fillWaitNs === 0)
        probe.fillWaitNs = lib.clockNs();
    },
  };
  return probe;
}

function decodeRow(name: string, r: OracleRunResult): DecodeRow {
  const s: RealStats | null = r.stats;
  const ms = s?.ms ?? { trunk: 0, cpuExperts: 0, gpuWait: 0, ffi: 0 };
  const wall = r.decodeSeconds * 1000;
  return {
    name,
    tokPerSec: r.tokPerSec,
    seconds: r.decodeSeconds,
    ms: { ...ms, other: Math.max(0, wall - ms.trunk - ms.cpuExperts - ms.gpuWait - ms.ffi) },
  };
}

function sameBits(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i];
      return (
        y !== undefined &&
        Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))
      );
    })
  );
}

/** What the device is charged for every expert of the model, plus room for the rounding. */
function capacityFor(lib: NativeEngineLib, model: EngineModel): number {
  const e = model.experts[0]?.[0];
  if (e === undefined) return 0;
  const one = [e.gate, e.up, e.down].reduce((a, p) => a + lib.footprint(p.dataBytes) + lib.footprint(4 * p.nscales), 0);
  return one * model.shape.layers * model.shape.experts + 64 * MiB;
}

/** The fill of median duration. */
function medianFill(fills: readonly RepeatedFill[]): RepeatedFill {
  const sorted = [...fills].sort((a, b) => a.landedMs - b.landedMs);
  const m = sorted[Math.floor(sorted.length / 2)];
  if (m === undefined) throw new Error('internal error: no fill measured');
  return m;
}

/** The warmstart again, one token: watched only by the probes (oracle_run.ts, `unchecked`),
 *  or by every checker once more. */
async function repeatFill(
  ctx: OracleContext,
  capacityBytes: number,
  base: OracleRunSpec,
  all: number,
  raw: UploadSection['raw'],
  problems: string[],
  unchecked: boolean,
): Promise<RepeatedFill> {
  const probe = fillProbe(ctx.lib);
  const name = unchecked ? 'everything resident, unchecked' : 'everything resident, again';
  const r = await runOracle(
    { ...ctx, tokens: 1, capacityBytes, probes: [probe], unchecked },
    { ...base, name, budgetExperts: [all], warmstart: 'plan' },
  );
  if (!r.ok) problems.push(`${name}: ${r.problem ?? 'failed'}`);
  const landedMs = (Math.max(probe.fillWaitNs, r.stats?.lastLandedNs ?? 0) - probe.planNs) / 1e6;
  const gbps = landedMs > 0 ? (r.stats?.uploadBytes ?? 0) / landedMs / 1e6 : 0;
  return { landedMs, gbps, ratioToPinned: gbps / raw.pinnedGBps };
}

export async function measureUpload(o: UploadBenchOptions): Promise<UploadSection> {
  const { lib, log } = o;
  const problems: string[] = [];
  log(`upload: raw copies (tl_copy_bandwidth, ${RAW_REPS} x 256 MiB) on ${lib.backend} device ${o.device} ...`);
  const raw = rawCopies(lib, o.device);
  log(`  pinned ${raw.pinnedGBps.toFixed(2)} GB/s, pageable ${raw.pageableGBps.toFixed(2)} GB/s`);
  log('upload: per-op overhead of the real world (tiny fixture) ...');
  const perOp = await perOpOverhead(lib, o.device);
  log(`  upload op ${perOp.uploadMicros.toFixed(2)} us, issue+take round trip ${perOp.issueTakeMicros.toFixed(2)} us`);
  // a scratch folder of the one clean-up registry: a signal or an error removes it
  const scratch = scratchDir('bench-model-');
  const dir = scratch.dir;
  const opts: BenchModelOptions = {
    dir,
    expertGiB: o.expertGiB,
    hidden: o.hidden,
    width: o.width,
    topk: 8,
    seed: 2026,
  };
  log(`upload: generating a model with ${o.expertGiB} GiB of experts in ${shownPath(dir)} ...`);
  const model = writeBenchModel(opts);
  try {
    return await measureRuns(o, model, raw, perOp, problems);
  } finally {
    scratch.remove();
  }
}

async function measureRuns(
  o: UploadBenchOptions,
  model: EngineModel,
  raw: UploadSection['raw'],
  perOp: UploadSection['perOp'],
  problems: string[],
): Promise<UploadSection> {
  const { lib, log } = o;
  const { layers, experts } = model.shape;
  const e0 = model.experts[0]?.[0];
  const tensorBytes = e0 === undefined ? 0 : e0.gate.dataBytes + 4 * e0.gate.nscales;
  const capacityBytes = lib.backend === 'cpu' ? capacityFor(lib, model) : 0;
  // the CPU backend's device memory for every expert is made (and touched) at creation
  const ctx = { lib, model, devices: [o.device], tokens: o.tokens, heatDir: tmpdir() };
  const base: OracleRunSpec = {
    name: 'cpu-only',
    budgetExperts: [0],
    warmstart: 'none',
    loaders: 4,
    useHeatFile: false,
    wantSwaps: false,
    swapPeriod: 16,
    streaming: false,
    faults: NO_FAULTS,
    shutdownAt: null,
  };
  log(
    `upload: ${layers} layers x ${experts} experts of 3 x ${(tensorBytes / MiB).toFixed(2)} MiB: CPU-only decode, ${o.tokens} tokens ...`,
  );
  const cpu = await runOracle(ctx, base);
  if (!cpu.ok) problems.push(`cpu-only: ${cpu.problem ?? 'failed'}`);
  log(`  ${cpu.tokPerSec.toFixed(2)} tok/s`);
  log('upload: warmstart of every expert, then the same decode ...');
  const probe = fillProbe(lib);
  const all = await runOracle(
    { ...ctx, capacityBytes, probes: [probe] },
    { ...base, name: 'everything resident', budgetExperts: [layers * experts], warmstart: 'plan' },
  );
  if (!all.ok) problems.push(`everything resident: ${all.problem ?? 'failed'}`);
  const s = all.stats;
  const bytes = s?.uploadBytes ?? 0;
  const fillWaitMs = (probe.fillWaitNs - probe.planNs) / 1e6;
  const landedMs = (Math.max(probe.fillWaitNs, s?.lastLandedNs ?? 0) - probe.planNs) / 1e6;
  const gbps = landedMs > 0 ? bytes / landedMs / 1e6 : 0;
  if (all.residentAtEnd !== layers * experts)
    problems.push(`${all.residentAtEnd} of ${layers * experts} experts resident`);
  for (const n of [...cpu.notes, ...all.notes]) problems.push(n);
  const identical = sameBits(cpu.hidden, all.hidden) && cpu.generated.join() === all.generated.join();
  if (!identical) problems.push('the resident decode differs from the CPU-only one');
  const mem = process.memoryUsage();
  const decode = [decodeRow('CPU-only', cpu), decodeRow('everything resident', all)];
  log(
    `  fill ${(bytes / 2 ** 30).toFixed(2)} GiB: ${gbps.toFixed(2)} GB/s, ${((100 * gbps) / raw.pinnedGBps).toFixed(1)} % of pinned; ${all.tokPerSec.toFixed(2)} tok/s`,
  );
  const uncheckedFills: RepeatedFill[] = [];
  const warmFills: RepeatedFill[] = [];
  for (let i = 0; i < o.fills; i++) {
    uncheckedFills.push(await repeatFill(ctx, capacityBytes, base, layers * experts, raw, problems, true));
    warmFills.push(await repeatFill(ctx, capacityBytes, base, layers * experts, raw, problems, false));
  }
  const unchecked = medianFill(uncheckedFills);
  const warm = medianFill(warmFills);
  const of = o.fills > 1 ? ` (median of ${o.fills})` : '';
  log(
    `  the same fill with no checker${of}: ${unchecked.gbps.toFixed(2)} GB/s, ${(100 * unchecked.ratioToPinned).toFixed(1)} % of pinned`,
  );
  log(
    `  the same fill again, every checker (JIT warm)${of}: ${warm.gbps.toFixed(2)} GB/s, ${(100 * warm.ratioToPinned).toFixed(1)} % of pinned`,
  );
  const us = (ms: number): number => (1000 * ms) / (layers * experts);
  const perExpert = {
    first: us(landedMs),
    warmChecked: us(warm.landedMs),
    unchecked: us(unchecked.landedMs),
    fills: o.fills,
  };
  log(
    `  per expert: ${perExpert.first.toFixed(1)} us in the first fill, ${perExpert.warmChecked.toFixed(1)} us warm with every checker, ${perExpert.unchecked.toFixed(1)} us with none`,
  );
  const targets = uploadTargets({
    backend: lib.backend,
    perExpert,
    fill: { ratioToPinned: gbps / raw.pinnedGBps },
    fillWarm: warm,
  });
  for (const line of targets) log(`  ${line.slice(2)}`);
  return {
    backend: lib.backend,
    library: lib.path,
    model: { layers, experts, tensorMiB: tensorBytes / MiB, expertGiB: (3 * tensorBytes * layers * experts) / 2 ** 30 },
    raw,
    perOp,
    fill: {
      bytes,
      uploads: s?.uploads ?? 0,
      fillWaitMs,
      landedMs,
      gbps,
      ratioToPinned: gbps / raw.pinnedGBps,
      ratioToPageable: gbps / raw.pageableGBps,
    },
    fillUnchecked: unchecked,
    fillWarm: warm,
    perExpert,
    decode,
    residentOverCpu: cpu.tokPerSec > 0 ? all.tokPerSec / cpu.tokPerSec : 0,
    identical,
    memory: {
      rssMiB: mem.rss / MiB,
      arrayBuffersMiB: mem.arrayBuffers / MiB,
      heapUsedMiB: mem.heapUsed / MiB,
      ramHostMiB: (s?.ramHostBytes ?? 0) / MiB,
      ramPinnedMiB: (s?.ramPinnedBytes ?? 0) / MiB,
    },
    problems,
  };
}
