/** The correct tier holds every property over every suite, and the coverage marks say the generators reach the hard situations. */
import { describe, expect, it } from 'vitest';
import { SUITES } from '../../properties/arbitraries.js';
import { checkSuite } from '../../properties/runner.js';
import { COVERAGE_MARKS } from '../../src/check/checkers/coverage.js';

// CI-sized: a few hundred schedules per suite on 2 cores
const RUNS = Number(process.env.TIERLAB_TEST_RUNS ?? 2000);

describe('every property holds on the correct tier', () => {
  const coverage: Record<string, number> = {};
  let total = 0;
  for (const suite of SUITES) {
    it(`suite ${suite}: ${RUNS} schedules, no violation`, () => {
      const r = checkSuite({ suite, seed: 1234, runs: RUNS });
      total += r.runs;
      for (const [mark, n] of Object.entries(r.coverage)) coverage[mark] = (coverage[mark] ?? 0) + n;
      expect(r.failure, r.failure === null ? '' : `${r.failure.property}: ${r.failure.detail}`).toBeNull();
      expect(r.violations).toEqual({});
      expect(r.runs).toBe(RUNS);
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
});
