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
  const coarse = zeroChunks(trimPath(r.path), attempt, 300);
  const min = shrinkChoices(coarse.choices, attempt, v.property, 400);
  const last = runOnce(h, req, sc, { kind: 'choices', choices: min.choices });
  return counterexample(req, t, sc.scenario, last.violation !== null ? last : r, min.choices, req.seed, min.shrinks);
}

/**
 * The coarse first pass of shrinking a long schedule (a random run's takes a decision a
 * step): turn whole chunks of choices quiet, halves first, then quarters, down to single
 * choices, keeping each that still fails; the fine moves of the prefix minimizer follow.
 */
function zeroChunks(
  choices: readonly number[],
  attempt: (c: readonly number[]) => number[] | null,
  maxRuns: number,
): { choices: number[]; runs: number } {
  let best = [...choices];
  let runs = 0;
  for (let size = best.length >> 1; size >= 1 && runs < maxRuns; size >>= 1) {
    for (let at = 0; at < best.length && runs < maxRuns; at += size) {
      if (!best.slice(at, at + size).some((c) => c !== 0)) continue;
      const cand = [
        ...best.slice(0, at),
        ...new Array<number>(Math.min(size, best.length - at)).fill(0),
        ...best.slice(at + size),
      ];
      runs++;
      const got = attempt(cand);
      if (got !== null && got.length <= best.length) best = got;
    }
  }
  return { choices: best, runs };
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
