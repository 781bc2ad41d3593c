/**
 * The trace check against every suite's schedules: the C tier's runs under tierlab's
 * scheduler (random schedules of each suite's scenarios: faults, swaps, streaming, the
 * later features, shutdown races), their events read as a free run's log. Where the
 * scheduled run's own judges (the checkers and the refinement against the reference)
 * find nothing, the log must be consumed whole: a rule of the trace check that rejects
 * a run the reference accepts is a rule that is wrong. Bounded by runs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import { runCTier } from '../../model/ctier/run_ctier.js';
import { SUITES, scenarioArb } from '../../properties/arbitraries.js';
import { checkTrace } from '../../src/check/trace/trace_check.js';
import { columnsFromRecords } from '../../src/check/trace/trace_from_records.js';
import { orderLog } from '../../src/check/trace/trace_order.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from '../ctier/build.js';

let h: CTierHarness;
beforeAll(() => {
  buildHarness();
  h = new CTierHarness();
});
afterAll(() => h.close());

describe('runs the reference accepts are consumed whole', () => {
  for (const suite of SUITES) {
    it(`${suite}: 12 scenarios, a random schedule each`, () => {
      const scenarios = fc.sample(scenarioArb(suite), { seed: 31, numRuns: 12 });
      let judged = 0;
      scenarios.forEach((s, i) => {
        const r = runCTier(h, harnessScenario(s), {
          level: 2,
          strategy: { kind: 'random', seed: 1000 + i },
          keepRecords: true,
        });
        if (!r.ok || r.records === null) return;
        judged++;
        const v = checkTrace(orderLog(columnsFromRecords(r.records, `${suite}#${i}`)));
        expect(v.divergence?.failed ?? null).toBeNull();
        expect(v.whole).toBe(true);
      });
      expect(judged).toBeGreaterThan(6);
    });
  }
});
