/**
 * The toy programs of the state cache's soundness tests (state_cache.test.ts, and the
 * largest in state_cache.nightly.test.ts), and what each search mode finds on them.
 */
import { expect, it } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { search } from '../../model/explore/search.js';
import type { Subject } from '../../model/explore/subject.js';
import type { Gen, Thread } from '../../src/ops.js';
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
export const lateWrite: Thread = function* (): Gen<void> {
  const v = (yield readCounter) as number;
  yield output;
  yield writeCounter(v + 10);
};
// B writes 1 first in the quiet schedule, so the states where lateWrite read 1 are
// explored before the ones where it read 0 (same ops taken, same counter, other locals)
export const lostUpdate = spawner([steps([writeCounter(1)]), lateWrite]);

export const found = (s: Subject, how: 'dfs' | 'sleep-cache' | 'dpor' | 'dpor-cache'): string[] => {
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

/** the program whose plain DFS takes over half a minute on two busy cores: nightly */
export const LARGEST = 'waiters and a signal';

export const programs: [string, Thread, number | undefined][] = [
  ['lost updates', spawner([racyIncrement(), racyIncrement(), racyIncrement()]), 3],
  ['locked increments', spawner([lockedIncrement(), lockedIncrement(), racyIncrement()]), 3],
  ['waiters and a signal', spawner([waitFor(1), waitFor(1), setAndWake(1, 'signal')]), undefined],
  ['late writes', spawner([lateWrite, lateWrite, steps([writeCounter(1), output])]), undefined],
];

/** Every search mode with a cache or reduction finds what plain DFS finds on these programs. */
export function findsWhatDfsFinds(which: (label: string) => boolean): void {
  for (const [label, main, expectCounter] of programs.filter(([l]) => which(l))) {
    it(`finds what plain DFS finds, with and without reduction: ${label}`, () => {
      const s = toy(main, { expectCounter, forbidCounter: 10, spuriousWakeups: 1 });
      const truth = found(s, 'dfs');
      for (const how of ['sleep-cache', 'dpor', 'dpor-cache'] as const) expect(found(s, how)).toEqual(truth);
    });
  }
}
