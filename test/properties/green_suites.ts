/**
 * The green run, shared by green.test.ts (npm test) and green.nightly.test.ts: every suite
 * for `runs` seeded schedules on the correct tier, no property violated, and every
 * coverage mark reached at least once over all of them.
 */
import { expect, it } from 'vitest';
import { SUITES } from '../../properties/arbitraries.js';
import { checkSuite } from '../../properties/runner.js';
import { COVERAGE_MARKS } from '../../src/check/checkers/coverage.js';

export function greenSuites(runs: number, seed = 1234): void {
  const coverage: Record<string, number> = {};
  let total = 0;
  for (const suite of SUITES) {
    it(`suite ${suite}: ${runs} schedules, no violation`, () => {
      const r = checkSuite({ suite, seed, runs });
      total += r.runs;
      for (const [mark, n] of Object.entries(r.coverage)) coverage[mark] = (coverage[mark] ?? 0) + n;
      expect(r.failure, r.failure === null ? '' : `${r.failure.property}: ${r.failure.detail}`).toBeNull();
      expect(r.violations).toEqual({});
      expect(r.runs).toBe(runs);
    });
  }

  it('random scenarios really reach the hard situations (coverage marks)', () => {
    const lines = COVERAGE_MARKS.map(
      (m) =>
        `${m}: ${coverage[m] ?? 0}/${total} runs (${(((coverage[m] ?? 0) * 100) / Math.max(1, total)).toFixed(1)} %)`,
    );
    process.stdout.write(`coverage marks over ${total} runs:\n  ${lines.join('\n  ')}\n`);
    for (const mark of COVERAGE_MARKS) expect(coverage[mark] ?? 0, mark).toBeGreaterThan(0);
  });
}
