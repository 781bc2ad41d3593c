/**
 * One assembly for both worlds: from a run spec, the model's shape and what the backend
 * can do, build the tier configuration (budgets in bytes, derived from what one expert
 * really takes on the device), the tier, the driver's plan and the checkers. The
 * simulator (model/run.ts) and the oracle (apps/oracle/oracle_run.ts) both call it, so the
 * two worlds configure the tier the same way by construction.
 */
import { accountingChecker } from '../check/checkers/accounting.js';
import { DriverChecker, type DriverDecisions } from '../check/checkers/driver.js';
import { endStateChecker } from '../check/checkers/end_state.js';
import { gateChecker } from '../check/checkers/gate.js';
import { evictionChecker, shutdownReturnChecker } from '../check/checkers/lifecycle.js';
import { postconditionChecker } from '../check/checkers/postconditions.js';
import { lostWakeupChecker } from '../check/checkers/lost_wakeup.js';
import { progressChecker, type FillConditions } from '../check/checkers/progress.js';
import { RefinementChecker } from '../check/refinement/refinement.js';
import type { CheckContext } from '../check/checked_world.js';
import type { Checker } from '../check/checker.js';
import { ENGINE_DEFAULTS, type ExpertFormat, type TierConfig, type TrunkOffer } from '../tier/config.js';
import { Tier } from '../tier/tier.js';
import { tierConfigFor } from '../tier/variants.js';
import type { DriverPlan } from './driver.js';
import type { RunSpec } from './run_spec.js';

export interface ModelShape {
  readonly layers: number;
  readonly experts: number;
  readonly topk: number;
}

export interface AssemblyInput {
  readonly spec: RunSpec;
  readonly shape: ModelShape;
  readonly devices: number;
  /** freeing a tensor returns its memory (false: a fill-once arena) */
  readonly reclaims: boolean;
  /** the experts' format, scale group, and payload bytes of their weights and scales */
  readonly expertFormat: ExpertFormat;
  readonly groupSize: number;
  readonly weightBytes: readonly [number, number, number];
  readonly scaleBytes: readonly [number, number, number];
  /** experts per layer the engine's RAM holds */
  readonly ramCapacity: number;
  /** what one expert really takes on a device: the world's allocator, not the tier's */
  readonly expertFootprint: number;
  /** 'auto' budgets keep this many experts' worth of device memory free */
  readonly reserveExperts: number;
  /** read a heat file at init and save it at shutdown */
  readonly heatFile: boolean;
  /** decode steps the driver runs */
  readonly tokens: number;
  /** the model's trunk matrices offered to the placer (the oracle's int8 trunk); without
   *  it, a scenario's denseBytes becomes one matrix of that size per device */
  readonly trunk?: readonly TrunkOffer[];
  /** the engine computes its trunk through the tier (the int8 trunk) */
  readonly trunkThroughTier?: boolean;
  /** bytes added to every device's budget (room made for the trunk) */
  readonly budgetExtraBytes?: number;
}

export interface Assembly {
  readonly cfg: TierConfig;
  readonly tier: Tier;
  readonly plan: DriverPlan;
}

export function assemble(a: AssemblyInput): Assembly {
  const s = a.spec;
  const cfg = tierConfigFor(
    { devices: a.devices, reclaims: a.reclaims },
    {
      layers: a.shape.layers,
      experts: a.shape.experts,
      topk: a.shape.topk,
      expertFormat: a.expertFormat,
      groupSize: a.groupSize,
      ramCapacity: a.ramCapacity,
      weightBytes: a.weightBytes,
      scaleBytes: a.scaleBytes,
      budgetBytes: s.budgetExperts.map((b) =>
        b === 'auto' ? 'auto' : b * a.expertFootprint + (a.budgetExtraBytes ?? 0),
      ),
      reserveBytes: a.reserveExperts * a.expertFootprint,
      ringCapacity: s.ringCapacity,
      wantSwaps: s.wantSwaps,
      streaming: s.streaming,
      heatFile: a.heatFile,
      swapPeriod: s.swapPeriod,
      decayPeriod: s.decayPeriod,
      startTick: s.startTick,
      trunk: a.trunk ?? denseOffers(s.denseBytes, a.devices),
      syncUploads: s.syncUploads,
      evictCapacity: s.evictCapacity,
      replanPerTick: ENGINE_DEFAULTS.replanPerTick,
    },
  );
  const plan: DriverPlan = {
    // streaming mode has no planned warmstart: experts are not in RAM to plan from
    warmstart: s.streaming && s.warmstart === 'plan' ? 'none' : s.warmstart,
    loaders: s.loaders,
    tokens: a.tokens,
    layers: a.shape.layers,
    refillAfterToken: s.refillAfterToken,
    shutdownAt: s.shutdownAt,
    denseWhileGroupOpen: s.denseWhileGroupOpen,
    streaming: s.streaming,
    initTwice: s.initTwice,
    careless: s.careless ?? [],
    runs: s.runs,
    trunkThroughTier: a.trunkThroughTier ?? false,
    evictedPoll: s.evictedPoll,
    replan: s.replan,
    prefer: s.prefer,
    statsThread: s.statsThread,
    initRacer: s.initRacer,
    secondShutdown: s.secondShutdown,
    tierOff: s.tierOff,
    trunkRacer: s.trunkRacer ?? false,
  };
  return { cfg, tier: new Tier(cfg), plan };
}

/** A scenario's dense trunk: one matrix of `bytes` per device (none for 0). */
function denseOffers(bytes: number, devices: number): TrunkOffer[] {
  if (bytes === 0) return [];
  return Array.from({ length: devices }, (_, d) => ({
    name: `dense${d}`,
    layer: -1,
    weightBytes: bytes,
    scaleBytes: 0,
  }));
}

/**
 * The checkers every run gets, in both worlds: accounting at every release of mx,
 * postconditions at API boundaries, no lost wakeup (nobody asleep whose wait is over), the end state,
 * the warmstart's progress where nothing can fail,
 * and last the refinement against the reference (the specific properties name a defect
 * more precisely when both see it). Coverage marks are the simulator's own: they measure
 * its generators.
 */
export function standardCheckers(ctx: CheckContext, opts: CheckerOptions): Checker[] {
  const checkers = [
    accountingChecker(ctx, opts.watchSlots === true, opts.slotsGuarded === true),
    postconditionChecker(ctx),
    lostWakeupChecker(ctx),
    endStateChecker(ctx),
    progressChecker(ctx, opts),
    gateChecker(ctx),
    shutdownReturnChecker(ctx),
    evictionChecker(ctx),
  ];
  if (opts.driver !== undefined) checkers.push(new DriverChecker(opts.driver));
  if (!opts.refinement) return checkers;
  return [...checkers, new RefinementChecker(ctx.st, ctx.world, opts.wantSwaps, opts.watchSlots === true)];
}

export interface CheckerOptions extends FillConditions {
  /** the lockstep check against the reference (off only to measure its cost) */
  readonly refinement: boolean;
  /** the engine wants LFRU swaps (the reference decides with the backend whether they happen) */
  readonly wantSwaps: boolean;
  /**
   * Check large slot tables by the slots written since the last release (table_watch.ts)
   * instead of scanning them: real runs, and the simulator's sampled runs (model/run.ts),
   * so that a check costs what changed and not the table's size; tables under
   * WATCH_MIN_SLOTS are scanned whole either way.
   */
  readonly watchSlots?: boolean;
  /** the tier's threads see the state through the read guard (guarded_reads.ts), which
   *  catches changes of slots without mx: the guarded digest leaves the slot table out */
  readonly slotsGuarded?: boolean;
  /** what the engine driver was asked to do: its decisions are checked (absent: a
   *  hand-written main thread, no driver to check) */
  readonly driver?: DriverDecisions;
}

/** The driver's decisions the DRV-* properties hold it to. */
export function driverDecisions(plan: DriverPlan): DriverDecisions {
  return {
    warmstart: plan.warmstart,
    initTwice: plan.initTwice,
    handOverTwice: plan.careless.includes('hand-over-twice'),
  };
}
