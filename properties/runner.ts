/**
 * Runs the property suite: fast-check generates scenarios and schedules, every run is
 * checked by every checker, and the first violation is shrunk to a short schedule and
 * re-run with the trace on.
 *
 * Strategies: `choices` (fast-check's choice lists, shrunk by fast-check), `random`
 * (seeded uniform choices), and `pct` and `exhaustive` (runner_explore.ts, shrunk by the
 * prefix minimizer). `checkScenario` runs one given scenario instead of a suite; that is
 * where PCT and exhaustive search state a guarantee.
 *
 * A violation is a counterexample for the property whose id it carries. With a
 * `property` filter, violations of other properties are counted (and make the whole run
 * fail) but are not shrunk.
 *
 * A time budget bounds the search only, never the shrinking: the first failing run is
 * found with the budget, then shrunk to its end from that run's path. The run a seed
 * fails at does not depend on the machine, so neither does the counterexample saved
 * (`mutants --jobs 1` and `--jobs 2` save the same files).
 */
import fc from 'fast-check';
import { runScenario, type RunResult } from '../model/run.js';
import { ChoicesStrategy, RandomStrategy, trimPath, type Strategy } from '../model/rt/strategy.js';
import type { Scenario } from '../model/scenario/scenario.js';
import { scenarioArb, scheduleArb, type Suite } from './arbitraries.js';
import type { CheckRequest, Counterexample, ScenarioRequest, SuiteResult } from './types.js';
import { checkExhaustive, checkPct, pctOnScenario } from './runner_explore.js';
import { joinSearchParts, searchPart } from './search_parts.js';
import { newTally, record, summarize } from './tally.js';

export function checkSuite(req: CheckRequest): SuiteResult {
  switch (req.strategy ?? 'choices') {
    case 'random':
      return checkRandom(req, scenarioArb(req.suite), req.suite);
    case 'pct':
      return checkPct(req);
    case 'exhaustive':
      return checkExhaustive(req);
    default:
      return checkChoices(req, scenarioArb(req.suite), req.suite);
  }
}

/** One given scenario under the chosen strategy (a counterexample file's, usually). */
export function checkScenario(req: ScenarioRequest): SuiteResult {
  const one = fc.constant(req.scenario);
  switch (req.strategy ?? 'choices') {
    case 'random':
      return checkRandom(req, one, 'scenario');
    case 'pct':
      return pctOnScenario(req);
    case 'exhaustive':
      return joinSearchParts(req, [searchPart({ request: req, index: 0, count: 1 })]);
    default:
      return checkChoices(req, one, 'scenario');
  }
}

type Source = fc.Arbitrary<Scenario>;
type Label = Suite | 'scenario';
type BaseRequest = Omit<CheckRequest, 'suite'>;

function checkChoices(req: BaseRequest, scenarios: Source, label: Label): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  let searching = true;
  const prop = fc.property(scenarios, scheduleArb(400, label), (scenario, choices) => {
    const r = runScenario(scenario, { strategy: new ChoicesStrategy(choices) });
    if (searching) {
      if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
      const ok = record(tally, r, started, req.property);
      if (!ok) searching = false; // what follows is shrinking: not counted as search
      return ok;
    }
    return r.ok || (req.property !== undefined && r.violation?.property !== req.property);
  });
  const found = fc.check(prop, {
    seed: req.seed,
    numRuns: req.runs,
    interruptAfterTimeLimit: req.seconds !== undefined ? req.seconds * 1000 : undefined,
    markInterruptAsFailure: false,
    endOnFailure: true,
  });
  searching = false;
  // the shrink, from the failing run's path, with no clock: the same whatever the load
  const details =
    found.failed && found.counterexamplePath !== null
      ? fc.check(prop, { seed: req.seed, path: found.counterexamplePath, endOnFailure: false })
      : found;
  const seconds = (performance.now() - started) / 1000;
  let failure: Counterexample | null = null;
  if (details.failed && details.counterexample !== null) {
    const [scenario, choices] = details.counterexample;
    const replay = runScenario(scenario, { strategy: new ChoicesStrategy(choices) });
    if (replay.violation !== null) {
      failure = {
        property: replay.violation.property,
        detail: replay.violation.detail,
        suite: label,
        scenario,
        choices: trimPath(pathOf(scenario, choices)),
        steps: replay.steps,
        seed: details.seed,
        path: details.counterexamplePath ?? '',
        runsToFind: tally.firstFailAtRun,
        shrinks: details.numShrinks,
        secondsToFind: tally.firstFailSeconds,
      };
    }
  }
  return summarize(label, 'choices', tally, seconds, failure);
}

/** The normalized decision path of a run: replays it exactly and prints short. */
export function pathOf(scenario: Scenario, choices: readonly number[]): number[] {
  const strategy = new ChoicesStrategy(choices);
  runScenario(scenario, { strategy });
  return strategy.path;
}

function checkRandom(req: BaseRequest, scenarios: Source, label: Label): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  let failure: Counterexample | null = null;
  for (let i = 0; i < req.runs && performance.now() < deadline; i++) {
    const [scenario] = fc.sample(scenarios, { seed: req.seed + i, numRuns: 1 });
    if (scenario === undefined) break;
    const strategy: Strategy = new RandomStrategy(`${req.seed}:${i}`);
    const r = runScenario(scenario, { strategy });
    if (i % 200 === 0) req.onProgress?.(i);
    if (!record(tally, r, started, req.property) && r.violation !== null) {
      failure = {
        property: r.violation.property,
        detail: r.violation.detail,
        suite: label,
        scenario,
        choices: trimPath(strategy.path),
        steps: r.steps,
        seed: req.seed + i,
        path: '',
        runsToFind: tally.runs,
        shrinks: 0,
        secondsToFind: tally.firstFailSeconds,
      };
      break;
    }
  }
  return summarize(label, 'random', tally, (performance.now() - started) / 1000, failure);
}

export interface Replayed extends RunResult {
  /** why `choices` is not a path this scenario's run takes (null: it is one) */
  readonly scheduleProblem: string | null;
}

/**
 * Re-runs a counterexample with the trace on. A saved schedule is the path a run took, so
 * every choice names one of its point's options and the run reaches every choice; a
 * schedule that does not (edited by hand, or saved for another scenario) is named in
 * `scheduleProblem` instead of being read as some other schedule.
 */
export function replayCounterexample(scenario: Scenario, choices: readonly number[]): Replayed {
  const strategy = new ChoicesStrategy(choices);
  const r = runScenario(scenario, { strategy, traced: true });
  const o = strategy.outOfRange;
  const scheduleProblem =
    o !== null
      ? `choice ${o.at} is ${o.choice}, but that choice point has ${o.options} options (0..${o.options - 1})`
      : strategy.consumed < choices.length
        ? `the schedule has ${choices.length} choices, but the run reaches only ${strategy.consumed} choice points`
        : null;
  return { ...r, scheduleProblem };
}

/** Trace records printed with a violation and by `npm run replay` (both the same window). */
export const PRINTED_TRACE_RECORDS = 80;

/** The lanes of a replayed run as both commands print them: the last records, or all. */
export function printedTrace(r: RunResult, full: boolean): string {
  return r.trace?.lanes({ last: full ? undefined : PRINTED_TRACE_RECORDS }) ?? '';
}
