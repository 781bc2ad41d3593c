/**
 * The property suite as a vitest test, for Stryker's vitest runner: one test per suite,
 * each a fixed number of generated scenarios and schedules from a fixed seed (never a
 * time budget: a test whose verdict depends on the clock would make Stryker's verdicts
 * depend on machine load). A mutant of the tier is killed when any property fails.
 * Beside the suites, committed scenarios searched completely (properties/searched_scenarios.ts),
 * a second or so each: races of the lifecycle the suites' runs do not reach.
 *
 * Not part of `npm test` (its name does not match *.test.ts); run by
 * mutants/stryker/vitest.stryker.config.ts.
 */
import { describe, expect, it } from 'vitest';
import { SUITES } from '../../properties/arbitraries.js';
import { checkScenario, checkSuite } from '../../properties/runner.js';
import { searchedRequest } from '../../properties/searched_scenarios.js';
import { strykerRuns } from './stryker_runs.js';

/** runs per suite: enough to kill the catalogue's mutants, small enough for 2 cores */
const RUNS = strykerRuns(process.env.TIERLAB_STRYKER_RUNS);
const SEED = 20261129;

describe('properties hold', () => {
  for (const [i, suite] of SUITES.entries()) {
    it(`suite ${suite}`, () => {
      const r = checkSuite({ suite, seed: SEED + i, runs: RUNS });
      const failure = r.failure === null ? null : `${r.failure.property}: ${r.failure.detail}`;
      expect(failure).toBeNull();
      expect(r.violations).toEqual({});
    });
  }
});

/** searched here: the trunk's entry points racing init (the default properties run searches all) */
const SEARCHED = ['trunk-racer', 'trunk-racer-off'] as const;

describe('searched scenarios hold', () => {
  for (const [i, name] of SEARCHED.entries()) {
    it(`scenario ${name}`, () => {
      const r = checkScenario(searchedRequest(name, { seed: SEED + i }));
      const failure = r.failure === null ? null : `${r.failure.property}: ${r.failure.detail}`;
      expect(failure).toBeNull();
      expect(r.violations).toEqual({});
    });
  }
});
