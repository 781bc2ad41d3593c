/**
 * The property runner's PCT and exhaustive strategies (model/rt/pct.ts, model/explore/).
 *
 * Over a suite's generated scenarios (what mutation runs use): PCT measures each scenario
 * with its quiet run, then gives it PCT_RUNS_PER_SCENARIO runs of depth d; exhaustive
 * search explores each scenario within the preemption bound, up to
 * EXHAUSTIVE_SCHEDULES_PER_SCENARIO schedules, then moves on. No guarantee is claimed
 * there: the numbers are per scenario and the scenarios are samples.
 *
 * On one given scenario, each gives its guarantee: PCT runs as many times as the bound
 * needs for the wanted confidence; exhaustive search covers every schedule within the
 * bound. Either way the first violation found is shrunk by the prefix minimizer
 * (model/explore/minimize.ts) and saved like fast-check's finds.
 */
import type { PropertyId } from '../src/check/catalogue.js';
import fc from 'fast-check';
import { pctGuarantee, searchGuarantee } from '../model/explore/guarantee.js';
import { CountingQuietStrategy } from '../model/explore/measure.js';
import { minimizeChoices } from '../model/explore/minimize.js';
import { pctCampaign } from '../model/explore/pct_campaign.js';
import { search, type FoundViolation } from '../model/explore/search.js';
import { scenarioSubject } from '../model/explore/subject.js';
import { runScenario } from '../model/run.js';
import { PctStrategy } from '../model/rt/pct.js';
import { DEFAULT_LIMITS } from '../src/check/limits.js';
import { ChoicesStrategy } from '../model/rt/strategy.js';
import type { Scenario } from '../model/scenario/scenario.js';
import { scenarioArb, type Suite } from './arbitraries.js';
import type { CheckRequest, Counterexample, ScenarioRequest, SuiteResult } from './types.js';
import { newTally, record, summarize, type Tally } from './tally.js';

/** PCT over generated scenarios: runs per scenario after the measuring (quiet) run. */
export const PCT_RUNS_PER_SCENARIO = 4;
/** Exhaustive search over generated scenarios: schedules per scenario at most. */
export const EXHAUSTIVE_SCHEDULES_PER_SCENARIO = 64;
export const DEFAULT_PCT_DEPTH = 2;
/** preemption bounds when none is given: one given scenario, generated ones */
export const DEFAULT_PREEMPTIONS_SCENARIO = 2;
export const DEFAULT_PREEMPTIONS_SUITE = 1;

export function checkPct(req: CheckRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  const scenarios = scenarioArb(req.suite);
  const depth = req.depth ?? DEFAULT_PCT_DEPTH;
  let failure: Counterexample | null = null;
  search: for (let i = 0; tally.runs < req.runs && performance.now() < deadline; i++) {
    const [scenario] = fc.sample(scenarios, { seed: req.seed + i, numRuns: 1 });
    if (scenario === undefined) break;
    // the measuring run is a checked run too (the quiet schedule)
    const quiet = new CountingQuietStrategy();
    const q = runScenario(scenario, { strategy: quiet });
    if (!record(tally, q, started, req.property) && q.violation !== null) {
      failure = shrunk(req.suite, scenario, { property: q.violation.property, choices: [] }, tally, req.seed + i);
      break;
    }
    for (let j = 0; j < PCT_RUNS_PER_SCENARIO && tally.runs < req.runs; j++) {
      const strategy = new PctStrategy({ seed: `${req.seed}:${i}:${j}`, depth, steps: q.steps, maxThreads: DEFAULT_LIMITS.maxThreads });
      const r = runScenario(scenario, { strategy });
      if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
      if (!record(tally, r, started, req.property) && r.violation !== null) {
        failure = shrunk(req.suite, scenario, { property: r.violation.property, choices: strategy.path }, tally, req.seed + i);
        break search;
      }
    }
  }
  return summarize(req.suite, 'pct', tally, (performance.now() - started) / 1000, failure);
}

export function checkExhaustive(req: CheckRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  const scenarios = scenarioArb(req.suite);
  let failure: Counterexample | null = null;
  for (let i = 0; tally.runs < req.runs && performance.now() < deadline && failure === null; i++) {
    const [scenario] = fc.sample(scenarios, { seed: req.seed + i, numRuns: 1 });
    if (scenario === undefined) break;
    let wanted: FoundViolation | null = null;
    const res = search(scenarioSubject(scenario), {
      preemptions: req.preemptions ?? DEFAULT_PREEMPTIONS_SUITE,
      reduce: req.reduction !== false,
      stateCache: req.stateCache === true,
      maxSchedules: Math.min(EXHAUSTIVE_SCHEDULES_PER_SCENARIO, req.runs - tally.runs),
      maxSeconds: Number.isFinite(deadline) ? Math.max(0.001, (deadline - performance.now()) / 1000) : undefined,
      onSchedule: (r) => {
        if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
        record(tally, r, started, req.property);
      },
    });
    for (const v of res.violations) if (wanted === null && (req.property === undefined || v.property === req.property)) wanted = v;
    if (wanted !== null) failure = shrunk(req.suite, scenario, wanted, tally, req.seed + i);
  }
  return summarize(req.suite, 'exhaustive', tally, (performance.now() - started) / 1000, failure);
}

export function pctOnScenario(req: ScenarioRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const res = pctCampaign(req.scenario, {
    depth: req.depth ?? DEFAULT_PCT_DEPTH,
    confidence: req.confidence,
    runs: req.runs,
    seed: String(req.seed),
    maxSeconds: req.seconds,
    onRun: (r) => {
      if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
      record(tally, r, started, req.property);
    },
  });
  const v = res.violations.find((f) => req.property === undefined || f.property === req.property) ?? null;
  const failure = v === null ? null : shrunk('scenario', req.scenario, v, tally, req.seed);
  return summarize('scenario', 'pct', tally, res.seconds, failure, pctGuarantee(res));
}

export function exhaustiveOnScenario(req: ScenarioRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const res = search(scenarioSubject(req.scenario), {
    preemptions: req.preemptions ?? DEFAULT_PREEMPTIONS_SCENARIO,
    reduce: req.reduction !== false,
    stateCache: req.stateCache === true,
    countStates: true,
    maxSchedules: req.runs,
    maxSeconds: req.seconds,
    onProgress: () => req.onProgress?.(tally.runs),
    onSchedule: (r) => record(tally, r, started, req.property),
  });
  const v = res.violations.find((f) => req.property === undefined || f.property === req.property) ?? null;
  const failure = v === null ? null : shrunk('scenario', req.scenario, v, tally, req.seed);
  return summarize('scenario', 'exhaustive', tally, res.seconds, failure, searchGuarantee(res));
}

/** The first wanted violation, shrunk by the prefix minimizer and re-run for its detail. */
function shrunk(
  suite: Suite | 'scenario',
  scenario: Scenario,
  found: { readonly property: PropertyId; readonly choices: readonly number[] },
  tally: Tally,
  seed: number,
): Counterexample {
  const m = minimizeChoices(scenario, found.choices, found.property);
  const replay = runScenario(scenario, { strategy: new ChoicesStrategy(m.choices) });
  return {
    property: found.property,
    detail: replay.violation?.detail ?? '',
    suite,
    scenario,
    choices: m.choices,
    steps: replay.steps,
    seed,
    path: '',
    runsToFind: tally.firstFailAtRun,
    shrinks: m.shrinks,
    secondsToFind: tally.firstFailSeconds,
  };
}
