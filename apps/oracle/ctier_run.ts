/**
 * One oracle run with the C tier inside the engine (`npm run oracle -- --tier c`): the
 * engine made ready exactly as for the TypeScript tier's run (oracle_run.ts: the same
 * engine, LUT, armed faults, reserved budgets, and the same tier configuration, written
 * into a tt_config), then the sequential driver of ctier_decode.ts over the C tier
 * library, and the result in the TypeScript rows' shape, so the rows are judged the same
 * way (tokens against the reference, hidden states bit for bit against the CPU-only run).
 *
 * What judges the C tier here besides the tokens: every entry point's answer (an error
 * code fails the row), the engine's own ledger after shutdown (back at what it held before
 * the tier started: no tensor leaked), and the arranged situation read from the tier's
 * event log (EVENTS.md), written per row beside the report and checked there by the trace
 * checker (a log not consumed whole fails the row).
 * Rows the C tier's driver cannot express say so by name (ctierSkipReason), never silently.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CTierOnEngine, type CTierLib, type TtConfig } from '../../src/engine/native/ctier_binding.js';
import { Int8Trunk } from '../../src/engine/native/int8_trunk.js';
import type { NativePtr } from '../../src/engine/native/binding.js';
import type { DriverPlan } from '../../src/engine/driver.js';
import { RealRamTable } from '../../src/engine/native/real_ram.js';
import { Trunk } from '../../src/engine/native/trunk.js';
import type { TierConfig } from '../../src/tier/config.js';
import { TRUNK_INT8 } from '../../src/fixture/model_types.js';
import type { CoverageMark } from '../../src/check/checkers/coverage.js';
import { checkedLog, countIn, RACED_MARKS, reachedIn, swapStepsIn } from './ctier_events.js';
import { CTierDecode, type CTierDecodeOutput } from './ctier_decode.js';
import {
  createEngine,
  arrangedAtFirstSwap,
  emptyResult,
  groupStats,
  prepareEngine,
  type OracleContext,
  type OracleRunResult,
  type OracleRunSpec,
} from './oracle_run.js';

export interface CTierContext extends OracleContext {
  readonly ctier: CTierLib;
  /** where each row's NDJSON event log goes (null: a scratch file, removed after the row) */
  readonly eventsPath: ((spec: OracleRunSpec) => string) | null;
}

/** Why the C tier's oracle driver cannot run a row yet; null when it can. */
export function ctierSkipReason(spec: OracleRunSpec): string | null {
  if (spec.faults.stageFails.length > 0)
    return (
      "a failed staging copy is injected by the TypeScript world's stage op; " +
      "the C tier's engine adapter calls tl_stage itself, which has no fault site"
    );
  if (spec.shutdownAt !== null && spec.shutdownAt.thread === 'own')
    return 'a shutdown on a thread of its own needs a second native caller; the C tier oracle driver is one thread';
  return laterSkipReason(spec);
}

/** The later protocol's rows (oracle_matrix.ts, laterRows): what the C tier's one-caller driver does not drive yet. */
function laterSkipReason(spec: OracleRunSpec): string | null {
  if ((spec.statsThread ?? 0) > 0 || spec.initRacer === true || spec.secondShutdown === true)
    return 'a stats thread, a racing init or a second shutdown needs a second native caller; the C tier oracle driver is one thread';
  if (spec.replan != null || spec.prefer != null || spec.syncUploads === true || (spec.evictedPoll ?? 0) > 0)
    return "re-plan, prefer-resident routing, sync uploads and the eviction ring are not driven by the C tier's oracle driver yet";
  return null;
}

export function runCTierOracle(ctx: CTierContext, spec: OracleRunSpec): OracleRunResult {
  if (spec.shutdownAtFirstSwap !== true && spec.refillAtFirstSwap !== true) return runOnce(ctx, spec);
  const plain = {
    ...spec,
    shutdownAtFirstSwap: false,
    refillAtFirstSwap: false,
    shutdownAt: null,
    refillAfterToken: undefined,
    arranged: undefined,
  };
  // the same run without the early shutdown or the refill says where its first swap comes:
  // its event log, kept aside, names the steps whose LFRU round enqueued one
  const probeLog = join(ctx.heatDir, 'probe.ndjson');
  const first = runOnce({ ...ctx, eventsPath: () => probeLog }, plain);
  const step = first.ok ? swapStepsIn(probeLog)[0] : undefined;
  rmSync(probeLog, { force: true });
  return arrangedAtFirstSwap(spec, first, step, (s) => runOnce(ctx, s));
}

function runOnce(ctx: CTierContext, spec: OracleRunSpec): OracleRunResult {
  const { lib, model } = ctx;
  const steps = model.prompt.length + ctx.tokens - 1;
  const fail = (problem: string): OracleRunResult => emptyResult(spec, problem);
  const created = createEngine(ctx, spec);
  if (created.status.code !== 0) return fail(`engine create: ${created.status.message}`);
  const engine = created.engine;
  let ram: RealRamTable | null = null;
  let tier: CTierOnEngine | null = null;
  let logPath: string | null = null;
  try {
    const built = prepareEngine(ctx, spec, engine, steps);
    if (typeof built === 'string') return fail(built);
    const baseline = lib.ledger(engine);
    ram = new RealRamTable(
      lib,
      engine,
      model,
      spec.streaming ? { kind: 'lru', lruPerLayer: spec.lruPerLayer ?? model.shape.experts } : { kind: 'resident' },
    );
    // without a log beside the report the row still logs, to a scratch file: its arranged situation is read there
    logPath = ctx.eventsPath?.(spec) ?? join(ctx.heatDir, 'row.ndjson');
    tier = new CTierOnEngine(ctx.ctier, engine, logPath);
    const heatPath = spec.useHeatFile ? join(ctx.heatDir, 'heat.qth') : null;
    const int8 = model.shape.trunkFormat === TRUNK_INT8 ? new Int8Trunk(lib, model, steps + 1) : null;
    const offers = trunkOffersOf(built.cfg, int8);
    const started = tier.init({ ...ttConfig(ctx.ctier, built.cfg, model.shape.hidden, heatPath), ...offers });
    const decode = decodeOver(ctx, spec, { engine, steps, plan: built.plan, ram, tier, int8, started });
    decode.run(started.state === 'active');
    tier.close();
    tier = null;
    const after = lib.ledger(engine);
    const notes: string[] = started.state === 'off' ? [`tier off: ${started.reason}`] : [];
    const leak =
      baseline.status.code === 0 && after.status.code === 0 && after.count !== baseline.count
        ? `engine ledger: ${after.count} allocations live after the tier's shutdown, ` +
          `${baseline.count} before it started`
        : null;
    const arranged = arrangedOf(spec, logPath);
    if (arranged.note !== null) notes.push(arranged.note);
    const traced = checkedLog(logPath);
    if (traced.note !== null) notes.push(traced.note);
    const problem = leak ?? arranged.problem ?? traced.problem;
    const groups = groupStats(lib, engine, notes);
    return resultOf(spec, built.cfg, decode.out, {
      ctx,
      problem,
      notes,
      ledger: after.status.code === 0 ? { count: after.count, bytes: after.bytes } : null,
      groups,
      situations: arranged.reached ? [arranged.mark] : [],
      trunkResident: offers.ntrunk > 0 ? countIn(logPath, 'trunk_placed') : 0,
    });
  } catch (e) {
    return fail(`error: ${(e as Error).message}`);
  } finally {
    tier?.close();
    ram?.releaseAll();
    if (ctx.eventsPath === null && logPath !== null) rmSync(logPath, { force: true });
    const d = lib.destroy(engine);
    if (d.code !== 0) process.stderr.write(`oracle: engine destroy: ${d.message}\n`);
  }
}

/** The sequential driver over this run's tier, RAM copies, trunk and CPU experts. */
function decodeOver(
  ctx: CTierContext,
  spec: OracleRunSpec,
  r: {
    engine: NativePtr;
    steps: number;
    plan: DriverPlan;
    ram: RealRamTable;
    tier: CTierOnEngine;
    int8: Int8Trunk | null;
    started: { readonly trunkBase: number };
  },
): CTierDecode {
  const { lib, model } = ctx;
  return new CTierDecode({
    tier: r.tier,
    ram: r.ram,
    trunk: r.int8 ?? new Trunk(lib, model, r.steps + 1),
    int8: r.int8,
    trunkBase: r.started.trunkBase,
    plan: r.plan,
    prompt: model.prompt,
    hidden: model.shape.hidden,
    experts: model.shape.experts,
    loadFails: spec.faults.loadFails,
    cpuExpert: (copy, x, y) => {
      r.ram.check(copy, copy.layer, copy.eid, 'CPU expert');
      const st = lib.expertCpuRam(r.engine, copy.ptr, x, y);
      if (st.code !== 0) throw new Error(`CPU expert L${copy.layer}E${copy.eid}: ${st.message}`);
    },
  });
}

/** The trunk offers of the TypeScript tier's configuration, with the int8 rows the engine
 *  adapter uploads (offer i is the int8 trunk's matrix i: trunk_offers.ts's one order). */
function trunkOffersOf(cfg: TierConfig, int8: Int8Trunk | null): Pick<TtConfig, 'trunk' | 'ntrunk'> {
  if (cfg.trunk.length === 0 || int8 === null) return { trunk: null, ntrunk: 0 };
  const trunk = cfg.trunk.map((o, i) => {
    const m = int8.matrices[i];
    if (m === undefined) throw new Error(`internal error: trunk offer ${o.name} has no int8 matrix #${i}`);
    return {
      layer: o.layer,
      weight_bytes: o.weightBytes,
      scale_bytes: o.scaleBytes,
      rows: m.rows,
      cols: m.cols,
      data: m.q,
      scales: m.scales,
    };
  });
  return { trunk, ntrunk: trunk.length };
}

/** The arranged situation: reached or not (from the row's log), and whether missing it fails the row. */
function arrangedOf(
  spec: OracleRunSpec,
  logPath: string | null,
): { mark: CoverageMark; reached: boolean; problem: string | null; note: string | null } {
  const mark = spec.arranged;
  if (mark === undefined) return { mark: 'upload-failed', reached: false, problem: null, note: null };
  const reached = logPath !== null && reachedIn(logPath, mark) === true;
  if (reached) return { mark, reached, problem: null, note: null };
  if (RACED_MARKS.has(mark))
    return {
      mark,
      reached,
      problem: null,
      note: `arranged ${mark} not reached: a race with the tier's uploader thread the sequential driver cannot force`,
    };
  return { mark, reached, problem: `arranged: the run never reached ${mark}`, note: null };
}

/** The TypeScript tier's configuration for this run, as the C tier's tt_config. */
function ttConfig(lib: CTierLib, cfg: TierConfig, hidden: number, heatPath: string | null): TtConfig {
  const c = lib.configDefaults();
  const budgets = cfg.budgetBytes.map((b) => (b === 'auto' ? 0xffffffffffffffffn : b));
  return {
    ...c,
    layers: cfg.layers,
    experts: cfg.experts,
    topk: cfg.topk,
    hidden,
    format: cfg.expertFormat,
    group: cfg.groupSize,
    ram_capacity: cfg.ramCapacity,
    weight_bytes: [...cfg.weightBytes],
    scale_bytes: [...cfg.scaleBytes],
    budget_bytes: [...budgets, ...new Array<number>(8 - budgets.length).fill(0)],
    reserve_bytes: cfg.reserveBytes,
    ring_capacity: cfg.ringCapacity,
    want_swaps: cfg.swaps ? 1 : 0,
    streaming: cfg.streaming ? 1 : 0,
    heat_path: cfg.heatFile ? heatPath : null,
    swap_period: cfg.swapPeriod,
    decay_period: cfg.decayPeriod,
    start_tick: cfg.startTick,
    trunk: null,
    ntrunk: 0,
    sync_uploads: 0,
    evict_capacity: cfg.evictCapacity,
  };
}

interface RowExtras {
  readonly ctx: CTierContext;
  readonly problem: string | null;
  readonly notes: string[];
  readonly ledger: { count: number; bytes: number } | null;
  readonly groups: OracleRunResult['groups'];
  readonly situations: readonly CoverageMark[];
  readonly trunkResident: number;
}

function resultOf(spec: OracleRunSpec, cfg: TierConfig, o: CTierDecodeOutput, x: RowExtras): OracleRunResult {
  const s = o.finalStats;
  const prompt = x.ctx.model.prompt.length;
  const decodeSeconds = Math.max(1e-9, (o.decodeEnded - o.decodeStarted) / 1000);
  return {
    ...emptyResult(spec, ''),
    ok: x.problem === null,
    problem: x.problem,
    generated: o.argmax.slice(prompt - 1),
    hidden: o.hidden,
    residentAtEnd: s?.resident ?? 0,
    residencyByToken: o.residencyByToken.slice(prompt - 1),
    hits: Number(s?.hits ?? 0),
    misses: Number(s?.misses ?? 0),
    uploads: Number(s?.uploads ?? 0),
    uploadFailures: Number(s?.upload_failures ?? 0),
    swaps: Number(s?.swaps ?? 0),
    swapsOn: cfg.swaps,
    tokPerSec: o.decodeEnded > 0 ? x.ctx.tokens / decodeSeconds : 0,
    decodeSeconds,
    notes: x.notes,
    nativeLedgerAtShutdown: x.ledger,
    trunkOnDevice: o.trunkOnDevice,
    trunkOnCpu: o.trunkOnCpu,
    trunkResident: x.trunkResident,
    trunkOffered: cfg.trunk.length,
    groups: x.groups,
    situations: x.situations,
  };
}
