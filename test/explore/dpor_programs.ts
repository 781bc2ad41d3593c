/**
 * The toy programs the DPOR tests run (dpor.test.ts, dpor.nightly.test.ts), and the check
 * against the brute-force oracle: every Mazurkiewicz trace explored exactly once, never a
 * sleep-blocked run.
 */
import { expect } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import type { Subject } from '../../model/explore/subject.js';
import { allTraceNames, recording } from './trace_classes.js';
import {
  lockedIncrement,
  nothing,
  output,
  racyIncrement,
  readCounter,
  setAndWake,
  spawner,
  steps,
  toySubject,
  waitFor,
  writeCounter,
  gateIncrement,
} from './toy_subject.js';

/** the program whose unbounded oracle takes a minute on two busy cores: nightly */
export const LARGEST = 'two spurious wakeups under a held mx, then a lock';

export const programs: [string, Subject][] = [
  ['independent ops', toySubject(spawner([steps([output, output]), steps([writeCounter(3), writeCounter(4)])]))],
  [
    'conflicting writes',
    toySubject(spawner([steps([writeCounter(1), writeCounter(2)]), steps([writeCounter(3), writeCounter(4)])])),
  ],
  [
    'lost updates, three threads',
    toySubject(spawner([racyIncrement(), racyIncrement(), steps([nothing, output, writeCounter(7)])])),
  ],
  [
    'readers and writers',
    toySubject(
      spawner([steps([readCounter, readCounter]), steps([writeCounter(1)]), steps([readCounter, writeCounter(2)])]),
    ),
  ],
  ['critical sections', toySubject(spawner([lockedIncrement(), lockedIncrement(), lockedIncrement()]))],
  [
    'locks and plain ops',
    toySubject(spawner([lockedIncrement(), steps([writeCounter(5), output]), lockedIncrement()])),
  ],
  ['a waiter and a broadcast', toySubject(spawner([waitFor(1), setAndWake(1, 'broadcast')]))],
  ['two waiters, one signal', toySubject(spawner([waitFor(1), waitFor(1), setAndWake(1, 'signal')]))],
  ['spurious wakeups', toySubject(spawner([waitFor(1), setAndWake(1, 'broadcast')]), undefined, 2)],
  // a wakeup while the setter holds mx cannot trade places with the third thread's lock
  [
    'a spurious wakeup under a held mx, then a lock',
    toySubject(spawner([waitFor(1), setAndWake(1, 'broadcast'), lockedIncrement()]), undefined, 1),
  ],
  [
    'two spurious wakeups under a held mx, then a lock',
    toySubject(spawner([waitFor(1), setAndWake(1, 'broadcast'), lockedIncrement()]), undefined, 2),
  ],
  // the lifecycle gate's gmx: a mutex of its own, whose events meet mx's only through objects
  [
    'two mutexes and plain ops',
    toySubject(spawner([lockedIncrement(), gateIncrement(), steps([writeCounter(5), output])])),
  ],
];

// Sections of both mutexes in three threads: every trace exactly once without a bound. Under a
// preemption bound the search misses a trace here (bound 2: one of 18), since a race between
// events of different mutexes is reversed only through objects. An open gap: bounded DPOR over
// two mutexes is not yet shown complete.
export const unboundedOnly: [string, Subject][] = [
  ['sections of gmx and of mx', toySubject(spawner([gateIncrement(), lockedIncrement(), gateIncrement()]))],
];

/** The unbounded DPOR search explores each trace of `subject` exactly once. */
export function eachTraceOnce(subject: Subject): void {
  const oracle = allTraceNames(subject, 'dpor');
  const covered = new Set<string>();
  const r = dporSearch(recording(subject, covered), {
    preemptions: Infinity,
    reduce: true,
    stopOnViolation: false,
  });
  expect(r.complete).toBe(true);
  expect(r.dpor.infeasible).toBe(0);
  expect(r.dpor.sleepBlocked).toBe(0);
  expect(covered).toEqual(oracle.names);
  expect(r.schedules).toBe(oracle.names.size);
}
