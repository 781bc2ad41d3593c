/**
 * A DPOR search split into parts (dpor/shard.ts) covers what the whole search covers: on
 * toy programs the parts together explore every Mazurkiewicz trace of the whole, on the
 * tier they reach the same distinct states and find the same violations. (The parts on
 * two worker threads against one thread: shards.nightly.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { mergeShards, type ShardResult } from '../../model/explore/dpor/shard_merge.js';
import type { Subject } from '../../model/explore/subject.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import { recording } from './trace_classes.js';
import {
  lockedIncrement,
  racyIncrement,
  spawner,
  steps,
  toySubject,
  waitFor,
  setAndWake,
  writeCounter,
} from './toy_subject.js';

const toys: [string, Subject][] = [
  ['lost updates, three threads', toySubject(spawner([racyIncrement(), racyIncrement(), steps([writeCounter(7)])]))],
  [
    'critical sections and plain ops',
    toySubject(spawner([lockedIncrement(), steps([writeCounter(5), writeCounter(6)]), lockedIncrement()])),
  ],
  ['two waiters, one signal', toySubject(spawner([waitFor(1), waitFor(1), setAndWake(1, 'signal')]))],
];

// two experts, one loader: the DPOR search finishes in about a second
const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });

describe('a DPOR search in parts', () => {
  for (const [label, subject] of toys) {
    it(`the parts together explore every trace of the whole: ${label}`, () => {
      const whole = new Set<string>();
      const w = dporSearch(recording(subject, whole), { preemptions: Infinity, reduce: true, stopOnViolation: false });
      for (const count of [2, 3]) {
        const union = new Set<string>();
        const parts: ShardResult[] = [];
        for (let index = 0; index < count; index++) {
          // split early (one pending branch per part), so that the toy trees do split
          const r = dporSearch(recording(subject, union), {
            preemptions: Infinity,
            reduce: true,
            stopOnViolation: false,
            shard: { index, count, splitAt: 1 },
          });
          parts.push({ index, count, result: r });
        }
        expect(union).toEqual(whole);
        const joined = mergeShards(parts);
        expect(joined.complete).toBe(true);
        expect(joined.violations.map((v) => v.property)).toEqual(w.violations.map((v) => v.property));
      }
    });
  }

  it('on the tier with the fill_wait race: the same distinct states and violations as the whole search', () => {
    const opts = { preemptions: Infinity, reduce: true, stopOnViolation: false, countStates: true } as const;
    const faulty = faultyWarmstart(1);
    const whole = dporSearch(scenarioSubject(tiny, true, faulty), opts);
    expect(whole.violations.length).toBeGreaterThan(0);
    const parts = [1, 0].map((index) => ({
      index,
      count: 2,
      result: dporSearch(scenarioSubject(tiny, true, faulty), {
        ...opts,
        keepStates: true,
        shard: { index, count: 2 },
      }),
    }));
    const joined = mergeShards(parts);
    expect(joined.complete).toBe(true);
    expect(joined.states).toBe(whole.states);
    expect(new Set(joined.violations.map((v) => v.property))).toEqual(new Set(whole.violations.map((v) => v.property)));
  });
});
