/**
 * The DPOR search on worker threads (dpor/parallel.ts) on the tier, nightly (npm run
 * test:nightly): the fill_wait race's tree with subtrees handed back after every run and
 * every third run, and a tree of thousands of schedules (the tier with two experts, 3,960
 * schedules, handed back every ten runs), each reaching the distinct states of the
 * one-thread search (dpor/search.ts), complete, with about as many schedules.
 */
import { describe, expect, it } from 'vitest';
import { dporParallel } from '../../model/explore/dpor/parallel.js';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { subjectNamed } from './parallel_subjects.js';

const opts = { preemptions: Infinity, reduce: true, stopOnViolation: false, countStates: true } as const;

const MODULE = new URL('./parallel_subjects.ts', import.meta.url).href;

describe('DPOR on worker threads, the tier under every slice', () => {
  for (const slice of [
    { ms: Infinity, runs: 1 },
    { ms: Infinity, runs: 3 },
  ]) {
    it(`gives the states and verdicts of the one-thread search: tier with the fill_wait race, ${slice.runs} runs a slice`, async () => {
      const name = 'tier with the fill_wait race';
      const one = dporSearch(subjectNamed(name), opts);
      const two = await dporParallel({ module: MODULE, fn: 'subjectNamed', arg: name }, opts, 2, slice);
      expect(two.complete).toBe(true);
      expect(two.states).toBe(one.states);
      expect(new Set(two.violations.map((v) => v.property))).toEqual(new Set(one.violations.map((v) => v.property)));
      expect(two.schedules).toBeLessThanOrEqual(Math.ceil(one.schedules * 1.2));
    });
  }
});

describe('DPOR on worker threads, a large tree', () => {
  it('gives the states of the one-thread search on the tier with 2 experts (3,960 schedules), ten runs a slice', async () => {
    // a tree of thousands of schedules, so that subtrees are handed back and taken over
    // many times over, with races of runs made apart landing in one tree
    const scenario = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2] });
    const one = dporSearch(scenarioSubject(scenario), opts);
    const spec = {
      module: new URL('../../model/explore/subject.ts', import.meta.url).href,
      fn: 'scenarioSubject',
      arg: scenario,
    };
    const two = await dporParallel(spec, opts, 2, { ms: Infinity, runs: 10 });
    expect(one.complete).toBe(true);
    expect(two.complete).toBe(true);
    expect(two.states).toBe(one.states);
    expect(two.violations).toEqual([]);
    expect(one.violations).toEqual([]);
    expect(two.schedules).toBeLessThanOrEqual(Math.ceil(one.schedules * 1.2));
    expect(two.dpor.infeasible).toBe(0);
  });
});
