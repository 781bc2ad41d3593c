/**
 * A scenario at both size caps (model/scenario/scenario_json.ts, SCENARIO_LIMITS: every
 * slot, every routed expert a run may have) runs to its end with no violation, in well
 * under the step limit: the caps and the limits agree. Nightly (npm run test:nightly): the
 * run takes half a minute on two busy cores; scenario_json.test.ts checks the parser.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { parseScenario, SCENARIO_LIMITS } from '../../model/scenario/scenario_json.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';

const base = JSON.parse(readFileSync('properties/scenarios/default.json', 'utf8')) as Record<string, unknown>;

describe('the size caps', () => {
  it('a scenario at both caps runs to its end in well under the step limit', () => {
    const devices = 8;
    const layers = 64;
    const experts = SCENARIO_LIMITS.slots / layers;
    const tokens = SCENARIO_LIMITS.routedPerRun / layers;
    const corner = {
      ...base,
      devices,
      layers,
      experts,
      topk: 1,
      ringCapacity: SCENARIO_LIMITS.ring,
      loaders: SCENARIO_LIMITS.loaders,
      budgetExperts: new Array(devices).fill(layers),
      capacityExperts: new Array(devices).fill(null),
      swapPeriod: 1,
      ramCapacity: experts,
      routes: Array.from({ length: tokens }, (_, t) =>
        Array.from({ length: layers }, (_, l) => [(t * 7 + l * 3) % experts]),
      ),
      refillAfterToken: -1,
    };
    const r = runScenario(parseScenario(corner, 'corner'), { strategy: new ChoicesStrategy([]) });
    expect(r.violation).toBeNull();
    expect(r.steps).toBeGreaterThan(10_000);
    expect(r.steps).toBeLessThan(DEFAULT_LIMITS.maxSteps / 2);
  });
});
