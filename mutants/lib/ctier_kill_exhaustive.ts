/**
 * Killing one C tier mutant by systematic search instead of sampling: the suites'
 * generated scenarios in turn, each searched within a delay bound of one (every schedule
 * that leaves the quiet schedule at exactly one decision, for each other option there;
 * Emmi, Qadeer and Rakamaric's delay bounding), up to `perScenario` schedules, then the
 * next scenario. This is the C tier's counterpart of the TypeScript runner's exhaustive
 * strategy over generated scenarios (a bounded search per scenario, then the next): no
 * guarantee is claimed, the scenarios are samples; on one given scenario the complete
 * search is properties/ctier/ctier_explore.ts.
 *
 * Why a delay bound and not the whole depth-first tree: the tree under a run's tail is
 * exponential, so a budget of a few hundred schedules never leaves the last decisions;
 * one deviation anywhere reaches every window a race with one preemption needs, in
 * decisions x options schedules, taken deepest first as the tree takes them (the
 * shutdown, the refill and the teardown sit at the end of a run). The decisions come from
 * the quiet run: before the deviation a schedule is the quiet run, so its decisions and
 * their widths are the same.
 *
 * Invariants: the order is fixed (scenario by scenario, deviations from the last
 * decision back, options in order), so the same seed kills the same way; the budget is a
 * number of runs, never seconds.
 */
import fc from 'fast-check';
import { harnessScenario, type HarnessScenario } from '../../model/ctier/harness_config.js';
import type { CTierRunResult } from '../../model/ctier/run_ctier.js';
import { trimPath } from '../../model/rt/strategy.js';
import { scenarioArb, SUITES, type Suite } from '../../properties/arbitraries.js';
import { counterexample, runOnce, shrunk, type CTierRequest } from '../../properties/ctier/ctier_shared.js';
import { newTally, record, type Tally } from '../../properties/tally.js';
import type { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import type { CKill } from './ctier_kill.js';

export interface CExhaustiveOptions {
  readonly runs: number;
  readonly seed: number;
  readonly level: 1 | 2;
  readonly fresh: boolean;
  /** schedules of one scenario at most (its quiet run included) */
  readonly perScenario: number;
  /** 0: keep the failing schedule as found */
  readonly shrinkRuns?: number;
  readonly suites?: readonly Suite[];
}

/**
 * The single-deviation schedules of a run with these widths, deepest decision first (the
 * depth-first tree's order, one deviation at most): [0 x d, option].
 */
export function oneDelaySchedules(widths: readonly number[], cap: number): number[][] {
  const out: number[][] = [];
  for (let d = widths.length - 1; d >= 0 && out.length < cap; d--) {
    for (let option = 1; option < (widths[d] ?? 1) && out.length < cap; option++) {
      const c = new Array<number>(d).fill(0);
      c.push(option);
      out.push(c);
    }
  }
  return out;
}

interface Found {
  readonly sc: HarnessScenario;
  readonly r: CTierRunResult;
  readonly req: CTierRequest;
}

/** One scenario's bounded search; the first failing run, or null. */
function searchScenario(
  h: CTierHarness,
  req: CTierRequest,
  sc: HarnessScenario,
  o: CExhaustiveOptions,
  t: Tally,
  started: number,
): Found | null | 'budget' {
  const quiet = runOnce(h, req, sc, { kind: 'choices', choices: [] });
  if (!record(t, quiet, started, undefined) && quiet.violation !== null) return { sc, r: quiet, req };
  for (const choices of oneDelaySchedules(quiet.widths, o.perScenario - 1)) {
    if (t.runs >= o.runs) return 'budget';
    const r = runOnce(h, req, sc, { kind: 'choices', choices });
    if (!record(t, r, started, undefined) && r.violation !== null) return { sc, r, req };
  }
  return null;
}

export function killCMutantExhaustive(h: CTierHarness, o: CExhaustiveOptions): CKill {
  const tally = newTally();
  const started = performance.now();
  const rotation = o.suites ?? SUITES.filter((s) => s !== 'mixed');
  for (let i = 0; tally.runs < o.runs; i++) {
    const suite = rotation[i % rotation.length] ?? 'general';
    const req: CTierRequest = {
      suite,
      seed: o.seed,
      runs: o.runs,
      strategy: 'exhaustive',
      level: o.level,
      fresh: o.fresh,
    };
    const [scenario] = fc.sample(scenarioArb(suite), { seed: o.seed + i, numRuns: 1 });
    if (scenario === undefined) continue;
    const found = searchScenario(h, req, harnessScenario(scenario), o, tally, started);
    if (found === 'budget') break;
    if (found === null) continue;
    const secondsToKill = (performance.now() - started) / 1000;
    const failure =
      o.shrinkRuns === 0
        ? counterexample(found.req, tally, scenario, found.r, trimPath(found.r.path), o.seed, 0)
        : shrunk(h, found.req, tally, found.sc, found.r);
    const runsToKill = tally.runs;
    return {
      killed: true,
      runs: runsToKill,
      seconds: (performance.now() - started) / 1000,
      runsToKill,
      secondsToKill,
      failure,
    };
  }
  const seconds = (performance.now() - started) / 1000;
  return { killed: false, runs: tally.runs, seconds, runsToKill: -1, secondsToKill: -1, failure: null };
}
