/**
 * The state cache is sound: it finds what plain DFS finds on toy programs and on the
 * tier (instrumented frames and thread histories), and the program counter the digest
 * used before (ops taken) is caught merging two states whose threads saw different values.
 */
import { describe, expect, it } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import { findsWhatDfsFinds, found, LARGEST, lostUpdate } from './state_cache_programs.js';
import { toy } from './toy_subject.js';

describe('the state cache is sound', () => {
  it('does not merge states whose threads saw different values: the lost update is found', () => {
    const sound = toy(lostUpdate, { forbidCounter: 10 });
    expect(found(sound, 'dfs')).toEqual(['COMP-EXACT-ONCE']);
    expect(found(sound, 'sleep-cache')).toEqual(['COMP-EXACT-ONCE']);
    expect(found(sound, 'dpor-cache')).toEqual(['COMP-EXACT-ONCE']);
    // the program counter the digest used before (ops taken) merges "read 1" with "read 0"
    // and prunes the only continuation that loses the update: this test catches that
    expect(found(toy(lostUpdate, { forbidCounter: 10, digest: 'op-count' }), 'dpor-cache')).toEqual([]);
  });

  // the largest program is state_cache.nightly.test.ts's
  findsWhatDfsFinds((label) => label !== LARGEST);

  it('on the tier, DPOR with the cache covers every state it reaches without, and finds the same violations', () => {
    const tiny = smallWarmstart({ experts: 2, budgetExperts: [2], loaders: 1 });
    // the engine's threads (instrumented frames) and a hand-written faulty main (histories)
    for (const subject of [scenarioSubject(tiny), scenarioSubject(tiny, true, faultyWarmstart(1))]) {
      const opts = { preemptions: Infinity, reduce: true, stopOnViolation: false, countStates: true };
      const stateless = dporSearch(subject, opts);
      const cached = dporSearch(subject, { ...opts, stateCache: true });
      expect(cached.complete).toBe(true);
      expect(cached.violations.map((v) => v.property)).toEqual(stateless.violations.map((v) => v.property));
      expect(cached.stepsExecuted).toBeLessThan(stateless.stepsExecuted);
      expect(cached.states ?? 0).toBeGreaterThanOrEqual(stateless.states ?? 0);
    }
  });
});
