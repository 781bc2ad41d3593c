/**
 * The state cache is sound: it finds what plain DFS finds on toy programs and on the
 * tier (instrumented frames and thread histories), and the program counter the digest
 * used before (ops taken) is caught merging two states whose threads saw different values.
 */
import { describe, expect, it } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { search } from '../../model/explore/search.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { scenarioSubject, type Subject } from '../../model/explore/subject.js';
import type { Gen, Thread } from '../../src/ops.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import {
  lockedIncrement,
  output,
  racyIncrement,
  readCounter,
  setAndWake,
  spawner,
  steps,
  toy,
  waitFor,
  writeCounter,
} from './toy_subject.js';

/** reads the counter, does something unrelated, then writes what it read plus 10 */
const lateWrite: Thread = function* (): Gen<void> {
  const v = (yield readCounter) as number;
  yield output;
  yield writeCounter(v + 10);
};
// B writes 1 first in the quiet schedule, so the states where lateWrite read 1 are
// explored before the ones where it read 0 (same ops taken, same counter, other locals)
const lostUpdate = spawner([steps([writeCounter(1)]), lateWrite]);

const found = (s: Subject, how: 'dfs' | 'sleep-cache' | 'dpor' | 'dpor-cache'): string[] => {
  const opts = { preemptions: Infinity, stopOnViolation: false, countStates: true };
  const r =
    how === 'dfs'
      ? search(s, { ...opts, reduce: false })
      : how === 'sleep-cache'
        ? search(s, { ...opts, reduce: true, stateCache: true })
        : dporSearch(s, { ...opts, reduce: true, stateCache: how === 'dpor-cache' });
  expect(r.complete).toBe(true);
  return r.violations.map((v) => v.property).sort();
};

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

  const programs: [string, Thread, number | undefined][] = [
    ['lost updates', spawner([racyIncrement(), racyIncrement(), racyIncrement()]), 3],
    ['locked increments', spawner([lockedIncrement(), lockedIncrement(), racyIncrement()]), 3],
    ['waiters and a signal', spawner([waitFor(1), waitFor(1), setAndWake(1, 'signal')]), undefined],
    ['late writes', spawner([lateWrite, lateWrite, steps([writeCounter(1), output])]), undefined],
  ];
  for (const [label, main, expectCounter] of programs) {
    it(`finds what plain DFS finds, with and without reduction: ${label}`, () => {
      const s = toy(main, { expectCounter, forbidCounter: 10, spuriousWakeups: 1 });
      const truth = found(s, 'dfs');
      for (const how of ['sleep-cache', 'dpor', 'dpor-cache'] as const) expect(found(s, how)).toEqual(truth);
    });
  }

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
