/**
 * Summary numbers over mutant results: counts by status, and the kill-time and
 * counterexample-length figures the catalogue is judged by.
 */
import type { MutantResult } from './result.js';

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? null) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export interface Summary {
  readonly total: number;
  readonly killed: number;
  readonly survived: number;
  readonly stillborn: number;
  readonly equivalent: number;
  readonly inconclusive: number;
  /** killed / (total - stillborn - equivalent - inconclusive) */
  readonly score: number | null;
  readonly secondsToKillMedian: number | null;
  readonly secondsToKillWorst: number | null;
  readonly wallSecondsMedian: number | null;
  readonly wallSecondsWorst: number | null;
  readonly stepsMedian: number | null;
  readonly choicesMedian: number | null;
}

export function summarize(rs: readonly MutantResult[]): Summary {
  const killed = rs.filter((r) => r.status === 'killed');
  const count = (s: MutantResult['status']): number => rs.filter((r) => r.status === s).length;
  const valid = rs.length - count('stillborn') - count('equivalent') - count('inconclusive');
  const nums = (f: (r: MutantResult) => number | null): number[] =>
    killed.map(f).filter((x): x is number => x !== null);
  const kill = nums((r) => r.secondsToKill);
  const wall = nums((r) => r.wallSeconds);
  return {
    total: rs.length,
    killed: killed.length,
    survived: count('survived'),
    stillborn: count('stillborn'),
    equivalent: count('equivalent'),
    inconclusive: count('inconclusive'),
    score: valid > 0 ? killed.length / valid : null,
    secondsToKillMedian: median(kill),
    secondsToKillWorst: kill.length > 0 ? Math.max(...kill) : null,
    wallSecondsMedian: median(wall),
    wallSecondsWorst: wall.length > 0 ? Math.max(...wall) : null,
    stepsMedian: median(nums((r) => r.steps)),
    choicesMedian: median(nums((r) => r.choices)),
  };
}
