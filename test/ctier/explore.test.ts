/**
 * The exhaustive search of the C tier: the next prefix by the decisions' widths (depth
 * first, the last decision with an untried option), and a complete search of a scenario
 * small enough to finish, every schedule judged.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { exploreCTier, nextPrefix } from '../../properties/ctier/ctier_explore.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from './build.js';

let h: CTierHarness;
beforeAll(() => {
  buildHarness();
  h = new CTierHarness();
});
afterAll(() => h.close());

describe('C tier exhaustive search', () => {
  it('takes the deepest decision with an untried option next', () => {
    expect(nextPrefix([0, 0, 0], [2, 3, 2])).toEqual([0, 0, 1]);
    expect(nextPrefix([0, 2, 1], [2, 3, 2])).toEqual([1]);
    expect(nextPrefix([1, 2, 1], [2, 3, 2])).toBeNull();
  });

  it('covers every schedule of a tiny scenario (init, the uploader, shutdown: 66 schedules)', () => {
    const base = parseScenario(JSON.parse(readFileSync('properties/scenarios/small-warmstart.json', 'utf8')), 'small');
    const tiny = { ...base, warmstart: 'none' as const };
    const r = exploreCTier(
      h,
      { suite: 'scenario', seed: 1, runs: 20_000, strategy: 'exhaustive', level: 2, fresh: false },
      tiny,
    );
    expect(r.failure).toBeNull();
    expect(r.guarantee?.complete).toBe(true);
    expect(r.runs).toBe(66);
  });
});
