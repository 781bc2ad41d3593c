/**
 * The C tier's schedule harness through koffi: one whole schedule per call, the same
 * records word for word for the same choices (in this process and in a forked child), the
 * choices it took replaying the run, and a bad scenario refused in one line.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import { runCTier } from '../../model/ctier/run_ctier.js';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { CTierHarness, HarnessError } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from './build.js';

const small = parseScenario(JSON.parse(readFileSync('properties/scenarios/small-warmstart.json', 'utf8')), 'small');
const medium = parseScenario(JSON.parse(readFileSync('properties/scenarios/default.json', 'utf8')), 'default');
let h: CTierHarness;
beforeAll(() => {
  buildHarness();
  h = new CTierHarness();
});
afterAll(() => h.close());

const opts = { maxSteps: 200_000, spurious: 0, level: 2 } as const;

describe('C tier harness', () => {
  it('runs a schedule whole and gives the same records for the same choices', () => {
    const sc = harnessScenario(medium);
    const first = h.run(sc.words, sc.heat, { ...opts, source: 'random', seed: 7, fresh: false }, []);
    expect(first.outcome).toBe('completed');
    expect(first.decisions).toBeGreaterThan(10);
    const a = h.records().records;
    const again = h.run(sc.words, sc.heat, { ...opts, source: 'recorded', fresh: false }, first.choices);
    expect(again.choices).toEqual(first.choices);
    expect(h.records().records).toEqual(a);
  });

  it('runs the same schedule in a forked child to the same records', () => {
    const sc = harnessScenario(medium);
    const here = h.run(sc.words, sc.heat, { ...opts, source: 'random', seed: 11, fresh: false }, []);
    const a = h.records().records;
    const child = h.run(sc.words, sc.heat, { ...opts, source: 'recorded', fresh: true }, here.choices);
    expect(child.outcome).toBe('completed');
    expect(h.records().records).toEqual(a);
  });

  it('judges a schedule by the records: the unmutated tier passes at both levels', () => {
    const sc = harnessScenario(small);
    for (const level of [1, 2] as const) {
      const r = runCTier(h, sc, { level, strategy: { kind: 'random', seed: 3 } });
      expect(r.violation, r.violation?.detail).toBeNull();
    }
  });

  it('refuses a scenario it cannot read, in one line', () => {
    const sc = harnessScenario(small);
    const bad = Float64Array.from(sc.words);
    bad[2] = 99; // devices
    expect(() => h.run(bad, null, { ...opts, source: 'recorded', fresh: false }, [])).toThrow(HarnessError);
    expect(() => h.run(bad, null, { ...opts, source: 'recorded', fresh: false }, [])).toThrow(/devices is 99/);
  });
});
