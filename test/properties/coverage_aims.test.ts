/**
 * The later protocol's coverage marks stay at their aim (properties/coverage_aims.ts):
 * each suite, over RUNS seeded runs, reaches each mark aimed at it in at least AIM_SHARE
 * of them. Bounded by runs, not seconds; the same seed gives the same scenarios, so the
 * shares are the same on any machine.
 */
import { describe, expect, it } from 'vitest';
import { AIM_SHARE, COVERAGE_AIMS } from '../../properties/coverage_aims.js';
import type { Suite } from '../../properties/arbitraries.js';
import { checkSuite } from '../../properties/runner.js';

/** runs per suite: enough that one run is well under the share's margin */
const RUNS = 400;
const SEED = 1;

describe('coverage marks of the later protocol', () => {
  const aims = Object.entries(COVERAGE_AIMS) as [Suite, readonly string[]][];
  it.each(aims)('suite %s reaches each of its marks in 5 % of its runs', { timeout: 900_000 }, (suite, marks) => {
    const r = checkSuite({ suite, seed: SEED, runs: RUNS });
    expect(r.failure, r.failure === null ? '' : `${r.failure.property}: ${r.failure.detail}`).toBeNull();
    expect(r.runs).toBe(RUNS);
    const counts = r.coverage as Readonly<Record<string, number>>;
    const shares = marks.map((m) => `${m}: ${counts[m] ?? 0}/${r.runs}`);
    process.stdout.write(`${suite}, seed ${SEED}:\n  ${shares.join('\n  ')}\n`);
    for (const mark of marks) expect(counts[mark] ?? 0, mark).toBeGreaterThanOrEqual(AIM_SHARE * r.runs);
  });
});
