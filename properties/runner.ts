/**
 * Runs the property suite: fast-check generates scenarios and schedules, every run is
 * checked by every checker, and the first violation is shrunk to a short schedule and
 * re-run with the trace on.
 *
 * A violation is a counterexample for the property whose id it carries. With a
 * `property` filter, violations of other properties are counted (and make the whole run
 * fail) but are not shrunk.
 */
import fc from 'fast-check';
import { runScenario, type RunResult } from '../model/run.js';
import { ChoicesStrategy, RandomStrategy, trimPath, type Strategy } from '../model/rt/strategy.js';
import type { Scenario } from '../model/scenario.js';
import { scenarioArb, scheduleArb, type Suite } from './arbitraries.js';

export type StrategyName = 'choices' | 'random';

export interface CheckRequest {
  readonly suite: Suite;
  readonly seed: number;
  readonly runs: number;
  /** wall-clock budget for this suite; stops early (not a failure) */
  readonly seconds?: number;
  readonly property?: string;
  readonly strategy?: StrategyName;
  /** called every few hundred runs with the runs so far */
  readonly onProgress?: (runs: number) => void;
}

export interface Counterexample {
  readonly property: string;
  readonly detail: string;
  readonly suite: Suite;
  readonly scenario: Scenario;
  /** the schedule that replays it (trailing quiet choices trimmed) */
  readonly choices: number[];
  readonly steps: number;
  /** fast-check's seed and path to the shrunk case */
  readonly seed: number;
  readonly path: string;
  readonly runsToFind: number;
  readonly shrinks: number;
  readonly secondsToFind: number;
}

export interface SuiteResult {
  readonly suite: Suite;
  readonly strategy: StrategyName;
  readonly runs: number;
  readonly steps: number;
  readonly seconds: number;
  readonly failure: Counterexample | null;
  /** violations seen per property id (before shrinking) */
  readonly violations: Record<string, number>;
  /** coverage mark -> runs that reached it */
  readonly coverage: Record<string, number>;
}

interface Tally {
  runs: number;
  steps: number;
  firstFailAtRun: number;
  firstFailSeconds: number;
  violations: Record<string, number>;
  coverage: Record<string, number>;
}

function newTally(): Tally {
  return { runs: 0, steps: 0, firstFailAtRun: -1, firstFailSeconds: -1, violations: {}, coverage: {} };
}

function record(t: Tally, r: RunResult, started: number, wanted: string | undefined): boolean {
  t.runs++;
  t.steps += r.steps;
  for (const mark of r.coverage) t.coverage[mark] = (t.coverage[mark] ?? 0) + 1;
  if (r.ok || r.violation === null) return true;
  const id = r.violation.property;
  t.violations[id] = (t.violations[id] ?? 0) + 1;
  if (wanted !== undefined && id !== wanted) return true;
  if (t.firstFailAtRun < 0) {
    t.firstFailAtRun = t.runs;
    t.firstFailSeconds = (performance.now() - started) / 1000;
  }
  return false;
}

export function checkSuite(req: CheckRequest): SuiteResult {
  return (req.strategy ?? 'choices') === 'random' ? checkRandom(req) : checkChoices(req);
}

function checkChoices(req: CheckRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  let searching = true;
  const prop = fc.property(scenarioArb(req.suite), scheduleArb(), (scenario, choices) => {
    const r = runScenario(scenario, { strategy: new ChoicesStrategy(choices) });
    if (searching) {
      if (tally.runs % 200 === 0) req.onProgress?.(tally.runs);
      const ok = record(tally, r, started, req.property);
      if (!ok) searching = false; // what follows is shrinking: not counted as search
      return ok;
    }
    return r.ok || (req.property !== undefined && r.violation?.property !== req.property);
  });
  const details = fc.check(prop, {
    seed: req.seed,
    numRuns: req.runs,
    interruptAfterTimeLimit: req.seconds !== undefined ? req.seconds * 1000 : undefined,
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
  searching = false;
  const seconds = (performance.now() - started) / 1000;
  let failure: Counterexample | null = null;
  if (details.failed && details.counterexample !== null) {
    const [scenario, choices] = details.counterexample;
    const replay = runScenario(scenario, { strategy: new ChoicesStrategy(choices) });
    if (replay.violation !== null) {
      failure = {
        property: replay.violation.property,
        detail: replay.violation.detail,
        suite: req.suite,
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
  return summarize(req, 'choices', tally, seconds, failure);
}

/** The normalized decision path of a run: replays it exactly and prints short. */
export function pathOf(scenario: Scenario, choices: readonly number[]): number[] {
  const strategy = new ChoicesStrategy(choices);
  runScenario(scenario, { strategy });
  return strategy.path;
}

function checkRandom(req: CheckRequest): SuiteResult {
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  const scenarios = scenarioArb(req.suite);
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
        suite: req.suite,
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
  return summarize(req, 'random', tally, (performance.now() - started) / 1000, failure);
}

function summarize(req: CheckRequest, strategy: StrategyName, t: Tally, seconds: number, failure: Counterexample | null): SuiteResult {
  return {
    suite: req.suite,
    strategy,
    runs: t.runs,
    steps: t.steps,
    seconds,
    failure,
    violations: t.violations,
    coverage: t.coverage,
  };
}

/** Re-runs a counterexample with the trace on. */
export function replayCounterexample(scenario: Scenario, choices: readonly number[]): RunResult {
  return runScenario(scenario, { strategy: new ChoicesStrategy(choices), traced: true });
}
