/**
 * Exhaustive search over the correct tier: with and without sleep-set reduction, at a
 * bound of two preemptions, it covers the same distinct states and finds nothing. Nightly
 * (npm run test:nightly): two plain searches of the tier, most of a minute on two busy
 * cores; tier_search.test.ts checks the modes against a faulty tier in npm test.
 */
import { describe, expect, it } from 'vitest';
import { search } from '../../model/explore/search.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';

// two experts, one loader
const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });

describe('exhaustive search over the correct tier', () => {
  it('on the correct tier every mode covers the same states and finds nothing', () => {
    const counts = [false, true].map((reduce) => {
      const r = search(scenarioSubject(tiny), { preemptions: 2, reduce, countStates: true, stopOnViolation: false });
      expect(r.violations).toEqual([]);
      return r.states;
    });
    expect(counts[1]).toBe(counts[0]);
  });
});
