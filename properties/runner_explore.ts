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
 * needs for the wanted confidence; exhaustive search (search_parts.ts: DPOR, in parts)
 * covers every schedule within the bound. Either way the first violation found is shrunk
 * by the prefix minimizer (model/explore/minimize.ts), or, when asked, replaced by the
 * shortest counterexample (model/explore/shortest.ts), and saved like fast-check's finds.
 */
import type { PropertyId } from '../src/check/catalogue.js';
import fc from 'fast-check';
import { pctGuarantee } from '../model/explore/guarantee.js';
import { CountingQuietStrategy } from '../model/explore/measure.js';
import { minimizeChoices } from '../model/explore/minimize.js';
import { pctCampaign } from '../model/explore/pct_campaign.js';
import { search, type FoundViolation } from '../model/explore/search.js';
import { shortestCounterexample } from '../model/explore/shortest.js';
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
  eachScenario: for (let i = 0; tally.runs < req.runs && performance.now() < deadline; i++) {
    const [scenario] = fc.sample(scenarios, { seed: req.seed + i, numRuns: 1 });
    if (scenario === undefined) break;
    // the measuring run is a checked run too (the quiet schedule)
    const quiet = new CountingQuietStrategy();
    const q = runScenario(scenario, { strategy: quiet });
    if (!record(tally, q, started, req.property) && q.violation !== null) {
      failure = shrunkCounterexample(
        req.suite,
        scenario,
        { property: q.violation.property, choices: [] },
        tally,
        req.seed + i,
      );
      break;
    }
    for (let j = 0; j < PCT_RUNS_PER_SCENARIO && tally.runs < req.runs; j++) {
      const strategy = new PctStrategy({
        seed: `${req.seed}:${i}:${j}`,
        depth,
        steps: q.steps,
        maxThreads: DEFAULT_LIMITS.maxThreads,
      });
      const r = runScenario(scenario, { strategy });
      if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
      if (!record(tally, r, started, req.property) && r.violation !== null) {
        failure = shrunkCounterexample(
          req.suite,
          scenario,
          { property: r.violation.property, choices: strategy.path },
          tally,
          req.seed + i,
        );
        break eachScenario;
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
    for (const v of res.violations)
      if (wanted === null && (req.property === undefined || v.property === req.property)) wanted = v;
    if (wanted !== null) failure = shrunkCounterexample(req.suite, scenario, wanted, tally, req.seed + i);
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
  const failure = v === null ? null : shrunkCounterexample('scenario', req.scenario, v, tally, req.seed);
  return summarize('scenario', 'pct', tally, res.seconds, failure, pctGuarantee(res));
}

/** The first wanted violation, shrunk by the prefix minimizer and re-run for its detail. */
export function shrunkCounterexample(
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

/**
 * The counterexample of the fewest steps for `property` (model/explore/shortest.ts: a
 * uniform-cost search of every schedule, no reduction), and a note for the guarantee:
 * the length is the shortest only when that search finished within the budget.
 */
export function shortestFailure(
  req: Omit<ScenarioRequest, 'onProgress'>,
  property: PropertyId,
  tally: Tally,
  onProgress?: (line: string) => void,
): { failure: Counterexample | null; note: string } {
  const s = shortestCounterexample(scenarioSubject(req.scenario), {
    property,
    ...(req.seconds !== undefined ? { maxSeconds: req.seconds } : {}),
    ...(onProgress !== undefined
      ? {
          onProgress: (p: { expanded: number; states: number; seconds: number }) =>
            onProgress(
              `shortest ${property}: ${p.expanded.toLocaleString('en-US')} states expanded, ${p.states.toLocaleString('en-US')} known, ${p.seconds.toFixed(0)} s`,
            ),
        }
      : {}),
  });
  if (s.found === null)
    return { failure: null, note: `shortest: no ${property} counterexample found again (${s.runs} runs)` };
  const replay = runScenario(req.scenario, { strategy: new ChoicesStrategy(s.found.choices) });
  const failure: Counterexample = {
    property,
    detail: replay.violation?.detail ?? s.found.detail,
    suite: 'scenario',
    scenario: req.scenario,
    choices: s.found.choices,
    steps: replay.steps,
    seed: req.seed,
    path: '',
    runsToFind: tally.firstFailAtRun,
    shrinks: 0,
    secondsToFind: tally.firstFailSeconds,
  };
  const note = s.complete
    ? `shortest counterexample: ${s.found.steps} steps, no schedule reaches ${property} in fewer (${s.expanded} states expanded, ${s.seconds.toFixed(1)} s)`
    : `shortest search INCOMPLETE (budget): ${s.found.steps} steps is the shortest found, not proven shortest`;
  return { failure, note };
}
