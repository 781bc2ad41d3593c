/**
 * The growth target's line: from the fewest and the most experts measured in turn where
 * the run has them (flatness.ts), else from the scaling rows, and a verdict only from what
 * was measured. The figures here are given, not timed: the verdict is arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { measureFlatness } from '../../apps/cli/bench/flatness.js';
import { grownScenarios } from '../../apps/cli/bench/scaling.js';
import { growthTarget, type ScalingRow } from '../../apps/cli/bench/speed_report.js';
import { measureSpeed, type Speed } from '../../apps/cli/bench/speed.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';

const speed = (perCpu: number): Speed => ({
  ...measureSpeed(defaultScenario(), { checks: false, seconds: 0.01, repeats: 1, warmupSeconds: 0 }),
  stepsPerCpuSecond: perCpu,
});

describe('the growth target', () => {
  it('takes the rounds in turn over the scaling rows, and says which it used', () => {
    const rows: ScalingRow[] = [
      { dimension: 'experts', value: 8, on: speed(400_000), off: speed(1e6) },
      { dimension: 'experts', value: 512, on: speed(200_000), off: speed(1e6) },
    ];
    expect(growthTarget(rows)).toMatch(/one sample each\), a step 2\.00 x: \*\*not met\*\*$/);
    const flat = {
      fewest: 8,
      most: 512,
      fewestPerCpuSecond: 400_000,
      mostPerCpuSecond: 380_000,
      rounds: 5,
      secondsPerRound: 0.33,
    };
    expect(growthTarget(rows, flat)).toMatch(
      /best of 5 rounds of 0\.33 s each, the two in turn\), a step 1\.05 x: met$/,
    );
    expect(growthTarget(undefined)).toMatch(/not measured/);
  });

  it('measures both sides with every checker on, each its best round', () => {
    const experts = grownScenarios(defaultScenario()).filter((g) => g.dimension === 'experts');
    const [fewest, most] = [experts[0], experts[1]];
    if (fewest === undefined || most === undefined) throw new Error('no experts rows');
    const f = measureFlatness(fewest, most, 2, 0.02);
    expect([f.fewest, f.most, f.rounds]).toEqual([fewest.value, most.value, 2]);
    expect(f.fewestPerCpuSecond).toBeGreaterThan(0);
    expect(f.mostPerCpuSecond).toBeGreaterThan(0);
  });
});
