/**
 * What the C tier's property runners share: the request, one judged run of the request's
 * level and mode, the seeded sources (random, PCT), and a failure's counterexample with
 * its choices shrunk by the prefix minimizer (model/explore/minimize.ts), over recorded
 * choices that replay it exactly.
 */
import { shrinkChoices } from '../../model/explore/minimize.js';
import { trimPath } from '../../model/rt/strategy.js';
import type { HarnessScenario } from '../../model/ctier/harness_config.js';
import { runCTier, type CTierRunResult, type CTierStrategy } from '../../model/ctier/run_ctier.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import type { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import type { PropertyId } from '../../src/check/catalogue.js';
import type { Suite } from '../arbitraries.js';
import type { Tally } from '../tally.js';
import type { Counterexample, StrategyName } from '../types.js';

export interface CTierRequest {
  readonly suite: Suite | 'scenario';
  /** the one scenario of suite 'scenario' */
  readonly scenario?: Scenario;
  readonly seed: number;
  readonly runs: number;
  readonly seconds?: number;
  readonly property?: PropertyId;
  readonly strategy: StrategyName;
  readonly depth?: number;
  readonly level: 1 | 2;
  /** every run in a forked child (a tier that may crash: mutants) */
  readonly fresh: boolean;
  readonly onProgress?: (runs: number) => void;
}

/** One run of the request's level and mode. */
export function runOnce(h: CTierHarness, req: CTierRequest, sc: HarnessScenario, s: CTierStrategy): CTierRunResult {
  return runCTier(h, sc, { level: req.level, strategy: s, fresh: req.fresh });
}

/** Run i's source: uniform random, or PCT over the steps a quiet run of the scenario takes. */
export function seededStrategy(h: CTierHarness, req: CTierRequest, sc: HarnessScenario, i: number): CTierStrategy {
  const seed = (req.seed * 2654435761 + i) >>> 0;
  if (req.strategy !== 'pct') return { kind: 'random', seed };
  const quiet = runOnce(h, req, sc, { kind: 'choices', choices: [] });
  return { kind: 'pct', seed, depth: req.depth ?? 2, steps: Math.max(1, quiet.steps) };
}

/** A failure's choices shrunk by the prefix minimizer (recorded choices replay it). */
export function shrunk(
  h: CTierHarness,
  req: CTierRequest,
  t: Tally,
  sc: HarnessScenario,
  r: CTierRunResult,
): Counterexample {
  const v = r.violation;
  if (v === null) throw new Error('internal error: shrinking a run that did not fail');
  const attempt = (c: readonly number[]): number[] | null => {
    const again = runOnce(h, req, sc, { kind: 'choices', choices: c });
    return again.violation?.property === v.property ? trimPath(again.path) : null;
  };
  const min = shrinkChoices(trimPath(r.path), attempt, v.property, 600);
  const last = runOnce(h, req, sc, { kind: 'choices', choices: min.choices });
  return counterexample(req, t, sc.scenario, last.violation !== null ? last : r, min.choices, req.seed, min.shrinks);
}

export function counterexample(
  req: CTierRequest,
  t: Tally,
  scenario: Scenario,
  r: CTierRunResult,
  choices: number[],
  seed: number,
  shrinks: number,
): Counterexample {
  const v = r.violation;
  if (v === null) throw new Error('internal error: a counterexample without a violation');
  return {
    property: v.property,
    detail: v.detail,
    suite: req.suite,
    scenario,
    choices,
    steps: r.steps,
    seed,
    path: '',
    runsToFind: t.firstFailAtRun,
    shrinks,
    secondsToFind: t.firstFailSeconds,
  };
}
