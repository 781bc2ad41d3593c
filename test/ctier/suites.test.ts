/**
 * The C tier under the scheduler on a sample of every suite (the TypeScript tier's own
 * arbitraries, properties/arbitraries.ts), judged at both levels: with its event log (the
 * standard checkers and the refinement against the reference) and by its boundary alone.
 * Bounded by runs; the same seeds give the same runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUITES } from '../../properties/arbitraries.js';
import { checkCTier } from '../../properties/ctier/ctier_runner.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from './build.js';

let h: CTierHarness;
beforeAll(() => {
  buildHarness();
  h = new CTierHarness();
});
afterAll(() => h.close());

describe('the C tier on every suite', () => {
  for (const suite of SUITES) {
    it(`${suite}: no property is violated (level 2: 20 choice lists, level 1: 6 random schedules)`, () => {
      const two = checkCTier(h, { suite, seed: 4242, runs: 20, strategy: 'choices', level: 2, fresh: false });
      expect(two.failure?.detail ?? null).toBeNull();
      expect(two.runs).toBe(20);
      const one = checkCTier(h, { suite, seed: 4242, runs: 6, strategy: 'random', level: 1, fresh: false });
      expect(one.failure?.detail ?? null).toBeNull();
      expect(one.violations).toEqual({});
    });
  }
});
