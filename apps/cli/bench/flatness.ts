/**
 * Whether a checked step grows with the number of experts, measured so that the machine's
 * load cannot decide it: the fewest and the most experts of the scaling rows run in turn,
 * several short rounds each, and each side keeps its best steps per CPU second.
 *
 * Why not the scaling rows themselves: each is one sample of one second, taken minutes
 * apart from the other; on a shared machine two such samples of the same scenario differ
 * by more than the 1.25 x the target allows, so one row could pass or fail on the load
 * alone. In turns, a burst of load lands on both sides alike, and the best of several
 * rounds is the least disturbed figure of each.
 *
 * Invariant: the same seeds on both sides (measureSpeed's), every checker on.
 */
import type { Scenario } from '../../../model/scenario/scenario.js';
import { measureSpeed } from './speed.js';

export interface Flatness {
  readonly fewest: number;
  readonly most: number;
  /** best checked steps per CPU second over the rounds, at the fewest and at the most experts */
  readonly fewestPerCpuSecond: number;
  readonly mostPerCpuSecond: number;
  readonly rounds: number;
  readonly secondsPerRound: number;
}

export function measureFlatness(
  fewest: { readonly value: number; readonly scenario: Scenario },
  most: { readonly value: number; readonly scenario: Scenario },
  rounds: number,
  secondsPerRound: number,
): Flatness {
  let a = 0;
  let b = 0;
  for (let i = 0; i < rounds; i++) {
    const opts = { checks: true, seconds: secondsPerRound, repeats: 1, warmupSeconds: 0.1 } as const;
    a = Math.max(a, measureSpeed(fewest.scenario, opts).stepsPerCpuSecond);
    b = Math.max(b, measureSpeed(most.scenario, opts).stepsPerCpuSecond);
  }
  return {
    fewest: fewest.value,
    most: most.value,
    fewestPerCpuSecond: a,
    mostPerCpuSecond: b,
    rounds,
    secondsPerRound,
  };
}
