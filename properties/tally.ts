/**
 * The bookkeeping every strategy's runner shares: runs, steps, violations per property,
 * coverage marks, and when the first wanted violation was seen (runs and seconds).
 *
 * Invariant: `record` returns false exactly for the first and later runs that violate
 * the wanted property (any property when none is wanted); other violations are counted
 * and make the whole run fail, but are not shrunk.
 */
import type { Guarantee } from '../model/explore/guarantee.js';
import type { Violation } from '../src/check/violation.js';
import type { CoverageMark } from '../src/check/checkers/coverage.js';
import type { Counterexample, CoverageCounts, StrategyName, SuiteResult, ViolationCounts } from './types.js';
import type { Suite } from './arbitraries.js';

export interface Tally {
  runs: number;
  steps: number;
  firstFailAtRun: number;
  firstFailSeconds: number;
  violations: ViolationCounts;
  coverage: CoverageCounts;
}

export function newTally(): Tally {
  return { runs: 0, steps: 0, firstFailAtRun: -1, firstFailSeconds: -1, violations: {}, coverage: {} };
}

/** What `record` needs of a run (a RunResult, or a schedule of an exhaustive search). */
export interface RunRecord {
  readonly violation: Violation | null;
  readonly steps: number;
  readonly coverage?: ReadonlySet<CoverageMark>;
}

export function record(t: Tally, r: RunRecord, started: number, wanted: string | undefined): boolean {
  t.runs++;
  t.steps += r.steps;
  for (const mark of r.coverage ?? []) t.coverage[mark] = (t.coverage[mark] ?? 0) + 1;
  if (r.violation === null) return true;
  const id = r.violation.property;
  t.violations[id] = (t.violations[id] ?? 0) + 1;
  if (wanted !== undefined && id !== wanted) return true;
  if (t.firstFailAtRun < 0) {
    t.firstFailAtRun = t.runs;
    t.firstFailSeconds = (performance.now() - started) / 1000;
  }
  return false;
}

export function summarize(
  suite: Suite | 'scenario',
  strategy: StrategyName,
  t: Tally,
  seconds: number,
  failure: Counterexample | null,
  guarantee?: Guarantee,
): SuiteResult {
  return {
    suite,
    strategy,
    runs: t.runs,
    steps: t.steps,
    seconds,
    failure,
    violations: t.violations,
    coverage: t.coverage,
    ...(guarantee !== undefined ? { guarantee } : {}),
  };
}
