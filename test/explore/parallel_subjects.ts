/**
 * Subjects a worker thread can build by name (dpor/parallel.ts builds its subject in each
 * worker from a module, a function and a plain argument): the toy programs of the DPOR
 * tests, and the tier with the hand-made fill_wait race on the tiny configuration.
 */
import type { Subject } from '../../model/explore/subject.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import { racyIncrement, setAndWake, spawner, steps, toySubject, waitFor, writeCounter } from './toy_subject.js';

// each search starts two worker threads (seconds on a loaded machine): a few subjects only
export const TOYS = ['lost updates', 'two waiters', 'tier with the fill_wait race'] as const;
export type ToyName = (typeof TOYS)[number];

// two experts, one loader: the DPOR search finishes in about a second
export const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });

export function subjectNamed(name: ToyName): Subject {
  switch (name) {
    case 'lost updates':
      return toySubject(spawner([racyIncrement(), racyIncrement(), steps([writeCounter(7)])]));
    case 'two waiters':
      return toySubject(spawner([waitFor(1), waitFor(1), setAndWake(1, 'signal')]));
    case 'tier with the fill_wait race':
      return scenarioSubject(tiny, true, faultyWarmstart(1));
  }
}
