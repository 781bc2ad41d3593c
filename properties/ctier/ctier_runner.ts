/**
 * The property suites on the C tier (native/tier/) under tierlab's scheduler: the same
 * scenario arbitraries as the TypeScript tier's suites (properties/arbitraries.ts), each
 * scenario run by the C harness and judged by the replay of its records (model/ctier/),
 * with the same property ids.
 *
 * Strategies, as for the TypeScript tier: `choices` (fast-check generates the scenario and
 * the choice list, and shrinks both), `random` and `pct` (the harness's own seeded
 * sources, one seed per run; a failure is shrunk by the prefix minimizer over recorded
 * choices), `exhaustive` (one given scenario: every schedule, depth first, by its
 * decisions' widths, bounded by runs). Budgets are runs; `seconds` is a safety net that
 * stops early and never decides a verdict.
 */
import fc from 'fast-check';
import { trimPath } from '../../model/rt/strategy.js';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import type { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { scenarioArb, scheduleArb, type Suite } from '../arbitraries.js';
import { newTally, record, summarize } from '../tally.js';
import type { Counterexample, SuiteResult } from '../types.js';
import { exploreCTier } from './ctier_explore.js';
import { counterexample, runOnce, seededStrategy, shrunk, type CTierRequest } from './ctier_shared.js';

export function checkCTier(h: CTierHarness, req: CTierRequest): SuiteResult {
  const scenarios = req.scenario !== undefined ? fc.constant(req.scenario) : scenarioArb(req.suite as Suite);
  switch (req.strategy) {
    case 'choices':
      return checkChoices(h, req, scenarios);
    case 'exhaustive':
      if (req.scenario === undefined) throw new RangeError('the exhaustive search of the C tier wants one scenario');
      return exploreCTier(h, req, req.scenario);
    default:
      return checkSeeded(h, req, scenarios);
  }
}

function checkChoices(h: CTierHarness, req: CTierRequest, scenarios: fc.Arbitrary<Scenario>): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  let searching = true;
  const prop = fc.property(scenarios, scheduleArb(400, req.suite), (scenario, choices) => {
    const r = runOnce(h, req, harnessScenario(scenario), { kind: 'choices', choices });
    if (!searching) return r.ok || (req.property !== undefined && r.violation?.property !== req.property);
    if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
    const ok = record(tally, r, started, req.property);
    if (!ok) searching = false;
    return ok;
  });
  const details = fc.check(prop, {
    seed: req.seed,
    numRuns: req.runs,
    interruptAfterTimeLimit: req.seconds !== undefined ? req.seconds * 1000 : undefined,
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
  searching = false;
  let failure: Counterexample | null = null;
  if (details.failed && details.counterexample !== null) {
    const [scenario, choices] = details.counterexample;
    const again = runOnce(h, req, harnessScenario(scenario), { kind: 'choices', choices });
    if (again.violation !== null)
      failure = counterexample(req, tally, scenario, again, trimPath(again.path), details.seed, details.numShrinks);
  }
  return summarize(req.suite, 'choices', tally, (performance.now() - started) / 1000, failure);
}

/** Random or PCT: the harness's seeded source, one seed per run. */
function checkSeeded(h: CTierHarness, req: CTierRequest, scenarios: fc.Arbitrary<Scenario>): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  let failure: Counterexample | null = null;
  for (let i = 0; i < req.runs && performance.now() < deadline; i++) {
    const [scenario] = fc.sample(scenarios, { seed: req.seed + i, numRuns: 1 });
    if (scenario === undefined) break;
    const sc = harnessScenario(scenario);
    const r = runOnce(h, req, sc, seededStrategy(h, req, sc, i));
    if (i % 200 === 0) req.onProgress?.(i);
    if (record(tally, r, started, req.property) || r.violation === null) continue;
    failure = shrunk(h, req, tally, sc, r);
    break;
  }
  return summarize(req.suite, req.strategy, tally, (performance.now() - started) / 1000, failure);
}
