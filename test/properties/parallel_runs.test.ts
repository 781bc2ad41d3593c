/**
 * A suite's runs cut into units (properties/parallel_runs.ts) give the same result on one
 * job, on two worker threads, and as shards joined afterwards: runs, steps, violations,
 * coverage and the counterexample, on a suite that finds one and on one that does not.
 */
import { describe, expect, it } from 'vitest';
import {
  joinUnits,
  runUnits,
  unitCount,
  unitSize,
  unitsOfShard,
  UNIT_RUNS,
  type PlainRequest,
} from '../../properties/parallel_runs.js';
import type { SuiteResult } from '../../properties/types.js';

/** What must not depend on the number of jobs (seconds do). */
function verdict(r: SuiteResult): unknown {
  return {
    runs: r.runs,
    steps: r.steps,
    violations: r.violations,
    coverage: r.coverage,
    failure: r.failure === null ? null : { ...r.failure, secondsToFind: 0 },
  };
}

describe('property runs in units', () => {
  const request: PlainRequest = { suite: 'fill-once', seed: 7, runs: UNIT_RUNS + 40, strategy: 'random' };

  it('one job, two worker threads and two shards joined agree', async () => {
    expect(unitCount(request, UNIT_RUNS)).toBe(2);
    const one = joinUnits(request, await runUnits(request, UNIT_RUNS, 1));
    const two = joinUnits(request, await runUnits(request, UNIT_RUNS, 2));
    const shards = [
      ...(await runUnits(request, UNIT_RUNS, 1, unitsOfShard(unitCount(request, UNIT_RUNS), { index: 1, count: 2 }))),
      ...(await runUnits(request, UNIT_RUNS, 1, unitsOfShard(unitCount(request, UNIT_RUNS), { index: 0, count: 2 }))),
    ];
    const joined = joinUnits(request, shards);
    expect(one.runs).toBe(request.runs);
    expect(verdict(two)).toEqual(verdict(one));
    expect(verdict(joined)).toEqual(verdict(one));
  });

  it('a time-budgeted run is one unit per job, whatever its run count', () => {
    const timed: PlainRequest = { ...request, runs: 1_000_000_000, seconds: 30 };
    expect(unitCount(timed, unitSize(timed, 1))).toBe(1);
    expect(unitCount(timed, unitSize(timed, 2))).toBe(2);
    expect(unitCount(request, unitSize(request, 2))).toBe(2);
  });

  it('a shard with no unit left gives an empty result, not an error', () => {
    expect(unitsOfShard(2, { index: 2, count: 3 })).toEqual([]);
    const r = joinUnits(request, []);
    expect(r.runs).toBe(0);
    expect(r.failure).toBeNull();
  });
});
