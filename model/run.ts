/**
 * One simulated run of a scenario under a strategy: builds the tier (the same code the
 * real engine runs), the simulated world and the checkers, and runs the engine's main
 * thread to the end or to the first violation.
 */
import { engineMain, type DriverPlan } from '../src/engine/driver.js';
import type { Gen } from '../src/ops.js';
import { MAX_GROUP_ROWS } from '../src/tier/config.js';
import { Tier } from '../src/tier/tier.js';
import { tierConfigFor } from '../src/tier/variants.js';
import { accountingChecker } from '../src/check/checkers/accounting.js';
import { CoverageChecker } from '../src/check/checkers/coverage.js';
import { endStateChecker } from '../src/check/checkers/end_state.js';
import { postconditionChecker } from '../src/check/checkers/postconditions.js';
import { stopWakesChecker } from '../src/check/checkers/stop_wakes.js';
import { DEFAULT_LIMITS, type RunLimits } from '../src/check/limits.js';
import { Runtime, type RunOutcome } from './rt/runtime.js';
import type { Checker } from '../src/check/checker.js';
import type { Strategy } from './rt/strategy.js';
import type { Trace } from './rt/trace.js';
import type { Scenario } from './scenario.js';
import { scaleBytesOf, SimulatedWorld } from './sim_engine/sim_world.js';

export interface RunOptions {
  readonly strategy: Strategy;
  readonly traced?: boolean;
  readonly limits?: Partial<RunLimits>;
  /** false: run without the checkers (to measure their cost) */
  readonly checks?: boolean;
  /** a hand-written main thread instead of the engine's (tests of the checkers) */
  readonly main?: (tier: Tier, world: SimulatedWorld) => Gen<void>;
}

export interface RunResult extends RunOutcome {
  readonly trace: Trace | null;
  readonly coverage: ReadonlySet<string>;
  readonly tier: Tier;
  readonly world: SimulatedWorld;
}

export function buildTier(s: Scenario, world: SimulatedWorld): Tier {
  const reserveExperts = 2;
  const cfg = tierConfigFor(
    { devices: s.devices, reclaims: s.reclaims },
    {
      layers: s.layers,
      experts: s.experts,
      topk: s.topk,
      weightBytes: s.weightBytes,
      scaleBytes: [scaleBytesOf(s.weightBytes[0]), scaleBytesOf(s.weightBytes[1]), scaleBytesOf(s.weightBytes[2])],
      budgetBytes: s.budgetExperts.map((b) => (b === 'auto' ? 'auto' : b * world.expertFootprint)),
      reserveBytes: reserveExperts * world.expertFootprint,
      ringCapacity: s.ringCapacity,
      wantSwaps: s.wantSwaps,
      streaming: s.streaming,
      heatFile: s.heatFile !== null,
      swapPeriod: s.swapPeriod,
      decayPeriod: s.decayPeriod,
      denseBytes: s.denseBytes,
    },
  );
  return new Tier(cfg);
}

export function driverPlanOf(s: Scenario): DriverPlan {
  return {
    warmstart: s.streaming && s.warmstart === 'plan' ? 'none' : s.warmstart,
    loaders: s.loaders,
    tokens: s.routes.length,
    layers: s.layers,
    refillAfterToken: s.refillAfterToken,
    shutdownAt: s.shutdownAt,
    denseWhileGroupOpen: s.denseWhileGroupOpen,
    streaming: s.streaming,
  };
}

export function runScenario(s: Scenario, opts: RunOptions): RunResult {
  const world = new SimulatedWorld(s, MAX_GROUP_ROWS);
  const tier = buildTier(s, world);
  const ctx = { st: tier.st, world };
  const coverage = new CoverageChecker(ctx);
  const checkers: Checker[] =
    opts.checks === false ? [] : [accountingChecker(ctx), postconditionChecker(ctx), stopWakesChecker(ctx), endStateChecker(ctx), coverage];
  const limits: RunLimits = { ...DEFAULT_LIMITS, spuriousWakeups: s.spuriousWakeups, ...opts.limits };
  const rt = new Runtime(world, opts.strategy, checkers, limits, opts.traced === true);
  const plan = driverPlanOf(s);
  const custom = opts.main;
  const outcome = rt.run(() => (custom !== undefined ? custom(tier, world) : engineMain(tier, plan)), 'main');
  return { ...outcome, trace: rt.trace, coverage: coverage.reached, tier, world };
}
