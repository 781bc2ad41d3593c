/**
 * One simulated run of a scenario under a strategy: the one assembly (src/engine/
 * assemble.ts) builds the tier (the same code the real engine runs), its plan and the
 * checkers; the simulated world answers; the runtime runs the engine's main thread to the
 * end or to the first violation.
 */
import { assemble, driverDecisions, standardCheckers } from '../src/engine/assemble.js';
import type { DriverDecisions } from '../src/check/checkers/driver.js';
import { engineMain } from '../src/engine/driver.js';
import type { Gen } from '../src/ops.js';
import type { Checker } from '../src/check/checker.js';
import { CoverageChecker, type CoverageMark } from '../src/check/checkers/coverage.js';
import { GuardedReads } from '../src/check/guarded_reads.js';
import { DEFAULT_LIMITS, type RunLimits } from '../src/check/limits.js';
import { TIER_SLOT_FIELDS, watchOf } from '../src/check/table_watch.js';
import { MAX_GROUP_ROWS } from '../src/tier/config.js';
import type { Tier } from '../src/tier/tier.js';
import type { TierState } from '../src/tier/state.js';
import { Runtime, type RunOutcome } from './rt/runtime.js';
import type { Strategy } from './rt/strategy.js';
import type { Trace } from './rt/trace.js';
import type { Scenario } from './scenario/scenario.js';
import { SimulatedWorld } from './sim_engine/sim_world.js';

export interface RunOptions {
  readonly strategy: Strategy;
  readonly traced?: boolean;
  readonly limits?: Partial<RunLimits>;
  /** false: run without the checkers; 'no-refinement': without the lockstep check against
   *  the reference (both to measure their cost) */
  readonly checks?: boolean | 'no-refinement';
  /**
   * Check that threads read mx-guarded state only holding mx (guarded_reads.ts; on by
   * default). The exhaustive searches turn it off, so that every search mode checks the
   * same (those that digest or save states cannot have it): the tier's threads would see the
   * state through proxies, which their digests and saved states would walk besides the
   * state itself; the sampled runs (properties, mutants) keep it.
   */
  readonly guardReads?: boolean;
  /**
   * Check large slot tables by the slots written, as real runs do (assemble.ts, table_watch.ts),
   * so that a checked step costs the same whatever the table's size. Absent: where the read
   * guard is on (the sampled runs); the searches, which save and restore states, keep plain slots.
   */
  readonly watchSlots?: boolean;
  /** a hand-written main thread instead of the engine's (tests of the checkers) */
  readonly main?: (tier: Tier, world: SimulatedWorld) => Gen<void>;
  /** the driver decisions a hand-written main thread is held to (DRV-*; absent: none) */
  readonly driver?: DriverDecisions;
  /** sees the tier and the world before the first step (state digests, probes) */
  readonly onBuilt?: (tier: Tier, world: SimulatedWorld) => void;
  /** sees the run's checkers before the first step (the state cache digests their memory) */
  readonly onCheckers?: (checkers: readonly Checker[]) => void;
  /** sees the runtime before the first step (a restoring search saves its state) */
  readonly onRuntime?: (rt: Runtime) => void;
}

export interface RunResult extends RunOutcome {
  readonly trace: Trace | null;
  readonly coverage: ReadonlySet<CoverageMark>;
  readonly tier: Tier;
  readonly world: SimulatedWorld;
}

/** 'auto' budgets in the simulator keep two experts' worth of device memory free. */
const RESERVE_EXPERTS = 2;

export function buildRun(s: Scenario, world: SimulatedWorld): ReturnType<typeof assemble> {
  return assemble({
    spec: s,
    shape: { layers: s.layers, experts: s.experts, topk: s.topk },
    devices: s.devices,
    reclaims: s.reclaims,
    expertFormat: s.expertFormat,
    groupSize: s.groupSize,
    weightBytes: s.weightBytes,
    scaleBytes: s.scaleBytes,
    ramCapacity: s.ramCapacity,
    expertFootprint: world.expertFootprint,
    reserveExperts: RESERVE_EXPERTS,
    heatFile: s.heatFile !== null,
    tokens: s.routes.length,
    trunk:
      s.trunk !== undefined && s.trunk.length > 0
        ? s.trunk.map((m, i) => ({ name: `trunk${i}`, layer: -1, ...m }))
        : undefined,
  });
}

/** No upload, staging copy or load can fail, and every device holds its budget. */
export function fillCannotFail(s: Scenario): boolean {
  const f = s.faults;
  if (f.uploadFails.length + f.stageFails.length + f.loadFails.length > 0) return false;
  return s.capacityExperts.every((c, d) => {
    const b = s.budgetExperts[d];
    return c === null || (typeof b === 'number' && c >= b);
  });
}

export function runScenario(s: Scenario, opts: RunOptions): RunResult {
  const world = new SimulatedWorld(s, MAX_GROUP_ROWS);
  const { tier, plan } = buildRun(s, world);
  opts.onBuilt?.(tier, world);
  const ctx = { st: tier.st, world };
  const coverage = new CoverageChecker(ctx);
  const guardReads = opts.checks !== false && opts.guardReads !== false;
  const checks = {
    faultFree: fillCannotFail(s),
    refinement: opts.checks !== 'no-refinement',
    wantSwaps: s.wantSwaps,
    watchSlots: opts.watchSlots ?? guardReads,
    slotsGuarded: guardReads,
    // a hand-written main thread is not the engine's driver, unless it says what it stands for
    ...(opts.main === undefined
      ? { driver: driverDecisions(plan) }
      : opts.driver !== undefined
        ? { driver: opts.driver }
        : {}),
  };
  const checkers: Checker[] = opts.checks === false ? [] : [...standardCheckers(ctx, checks), coverage];
  if (guardReads) {
    // the tier's threads read the state through the guard; the checkers read it directly
    const guard = new GuardedReads(tier.st);
    // every write of the tier's threads goes through the guard: it tells the slot watch
    if (checks.watchSlots) guard.feeds(watchOf(tier.st, TIER_SLOT_FIELDS, true));
    (tier as { st: TierState }).st = guard.state as TierState;
    checkers.push(guard);
  }
  opts.onCheckers?.(checkers);
  const limits: RunLimits = { ...DEFAULT_LIMITS, spuriousWakeups: s.spuriousWakeups, ...opts.limits };
  const rt = new Runtime(world, opts.strategy, checkers, limits, opts.traced === true);
  opts.onRuntime?.(rt);
  const custom = opts.main;
  const outcome = rt.run(() => (custom !== undefined ? custom(tier, world) : engineMain(tier, plan)), 'main');
  return { ...outcome, trace: rt.trace, coverage: coverage.reached, tier, world };
}
