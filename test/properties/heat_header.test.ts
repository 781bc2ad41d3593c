/**
 * The heat files the suites do not draw (heat-header.json): this model's bytes under a
 * header with one count off by one, and no file at all (an engine's first run). Init must
 * load no heat from either (the reference agrees: the run holds every property), while
 * the same scenario with a well-formed file loads it halved. The Stryker property test
 * runs these too: a reader that checks the length and only one count takes a damaged
 * header, and one that reads a missing file crashes.
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import type { HeatFileDefect } from '../../model/scenario/scenario.js';
import { committedScenario } from '../../properties/committed_scenarios.js';
import { readHeatFile } from '../../src/protocol_ref/heat_file.js';

/**
 * The run's outcome and the heats its shutdown wrote back (no token is decoded, so they
 * are the heats init loaded).
 */
function run(defect: HeatFileDefect): { ok: boolean; violation: string | null; heats: number[] | null } {
  const scenario = { ...committedScenario('heat-header'), heatFileDefect: defect };
  const r = runScenario(scenario, { strategy: new ChoicesStrategy([]) });
  const written = readHeatFile(r.world.heatFileBytes, scenario.layers, scenario.experts);
  return { ok: r.ok, violation: r.violation === null ? null : r.violation.message, heats: written?.flat() ?? null };
}

describe('heat files the suites do not draw', () => {
  it('a well-formed file is loaded halved', () => {
    expect(run('none')).toEqual({ ok: true, violation: null, heats: [1, 20] });
  });
  for (const defect of ['wrong-layer-count', 'wrong-expert-count', 'absent'] as const) {
    it(`${defect}: no heat is loaded, and the run holds`, () => {
      expect(run(defect)).toEqual({ ok: true, violation: null, heats: [0, 0] });
    });
  }
});
