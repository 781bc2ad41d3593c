/**
 * The check that the DPOR search going on from saved states explores what the search
 * replaying every run from the start explores (restore.test.ts, restore.nightly.test.ts):
 * the same schedules, stopped runs, states and nodes, the same DPOR counts and violations,
 * no failed restore, and a few steps per distinct state.
 */
import { expect } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import type { Scenario } from '../../model/scenario/scenario.js';

export function restoredLikeReplayed(scenario: Scenario): void {
  const opts = { preemptions: Infinity, reduce: true, stopOnViolation: false, countStates: true, stateCache: true };
  const replayed = dporSearch(scenarioSubject(scenario), { ...opts, restore: false });
  const restored = dporSearch(scenarioSubject(scenario), opts);
  expect(restored.restore).not.toBeNull();
  expect(restored.restore?.failures).toBe(0);
  expect(replayed.restore).toBeNull();
  expect(restored.complete).toBe(true);
  for (const k of ['schedules', 'cached', 'blocked', 'states', 'nodes'] as const)
    expect(restored[k], k).toBe(replayed[k]);
  expect(restored.dpor).toEqual(replayed.dpor);
  expect(restored.violations.map((v) => v.property)).toEqual(replayed.violations.map((v) => v.property));
  // the point of it: a few steps per distinct state (the aim is at most 5)
  expect(restored.stepsExecuted / (restored.states ?? 1)).toBeLessThan(5);
  expect(restored.stepsExecuted).toBeLessThan(replayed.stepsExecuted / 5);
}
