/**
 * Killing one C tier mutant (mutants/ctier/) under the scheduler: its schedule harness
 * (built in a scratch copy) runs the property suites' scenarios in turn, each under a
 * seeded schedule (random, or PCT), judged by the replay; the first violation is shrunk by
 * the prefix minimizer to the shortest schedule that still shows it. No clock decides
 * anything: the budget is a number of runs, and the same seed kills the same way.
 */
import fc from 'fast-check';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import { scenarioArb, SUITES, type Suite } from '../../properties/arbitraries.js';
import {
  counterexample,
  runOnce,
  seededStrategy,
  shrunk,
  type CTierRequest,
} from '../../properties/ctier/ctier_shared.js';
import { trimPath } from '../../model/rt/strategy.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import type { CTierRunResult } from '../../model/ctier/run_ctier.js';
import type { Tally } from '../../properties/tally.js';
import { newTally, record } from '../../properties/tally.js';
import type { Counterexample, StrategyName } from '../../properties/types.js';
import type { CTierHarness } from '../../src/engine/native/ctier_harness.js';

export interface CKillOptions {
  readonly runs: number;
  readonly seed: number;
  readonly level: 1 | 2;
  readonly strategy: Extract<StrategyName, 'random' | 'pct'>;
  /** every run in a forked child (a mutant may crash the tier) */
  readonly fresh: boolean;
  /** 0: keep the failing schedule as it was found (no shrinking) */
  readonly shrinkRuns?: number;
  /** the suites whose scenarios are run in turn (default: every suite but 'mixed') */
  readonly suites?: readonly Suite[];
}

export interface CKill {
  readonly killed: boolean;
  readonly runs: number;
  readonly seconds: number;
  /** runs and seconds to the first failure (before shrinking) */
  readonly runsToKill: number;
  readonly secondsToKill: number;
  readonly failure: Counterexample | null;
}

/** The suites' scenarios in turn (not 'mixed', which draws from them all). */
const ROTATION = SUITES.filter((s) => s !== 'mixed');

export function killCMutant(h: CTierHarness, o: CKillOptions): CKill {
  const tally = newTally();
  const started = performance.now();
  const rotation = o.suites ?? ROTATION;
  for (let i = 0; i < o.runs; i++) {
    const suite = rotation[i % rotation.length] ?? 'general';
    const req: CTierRequest = {
      suite,
      seed: o.seed,
      runs: o.runs,
      strategy: o.strategy,
      level: o.level,
      fresh: o.fresh,
    };
    const [scenario] = fc.sample(scenarioArb(suite), { seed: o.seed + i, numRuns: 1 });
    if (scenario === undefined) continue;
    const sc = harnessScenario(scenario);
    const r = runOnce(h, req, sc, seededStrategy(h, req, sc, i));
    if (record(tally, r, started, undefined) || r.violation === null) continue;
    const secondsToKill = (performance.now() - started) / 1000;
    const failure = o.shrinkRuns === 0 ? unshrunk(req, tally, sc.scenario, r) : shrunk(h, req, tally, sc, r);
    return {
      killed: true,
      runs: tally.runs,
      seconds: (performance.now() - started) / 1000,
      runsToKill: tally.runs,
      secondsToKill,
      failure,
    };
  }
  const seconds = (performance.now() - started) / 1000;
  return { killed: false, runs: tally.runs, seconds, runsToKill: -1, secondsToKill: -1, failure: null };
}

function unshrunk(req: CTierRequest, t: Tally, scenario: Scenario, r: CTierRunResult): Counterexample {
  return counterexample(req, t, scenario, r, trimPath(r.path), req.seed, 0);
}
