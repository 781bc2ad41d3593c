/**
 * The property suite as a vitest test, for Stryker's vitest runner: one test per suite,
 * each a fixed number of generated scenarios and schedules from a fixed seed (never a
 * time budget: a test whose verdict depends on the clock would make Stryker's verdicts
 * depend on machine load). A mutant of the tier is killed when any property fails.
 *
 * Not part of `npm test` (its name does not match *.test.ts); run by
 * mutants/stryker/vitest.stryker.config.ts.
 */
import { describe, expect, it } from 'vitest';
import { SUITES } from '../../properties/arbitraries.js';
import { checkSuite } from '../../properties/runner.js';
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
