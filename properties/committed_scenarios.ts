/**
 * The committed scenarios (properties/scenarios/*.json), read through the one scenario
 * parser: the only copy of each, shared by the benchmark, the tests and `--scenario`.
 *
 *  - default: two devices, swaps, a planned warmstart with two loaders, a ring small
 *    enough to fill, a re-fill between tokens, shutdown at the end;
 *  - small-warmstart: one device, four experts, two loaders, ring depth 2, a planned
 *    warmstart then shutdown (no tokens), sized for exhaustive search: four threads
 *    racing over the ring, fill_wait and the uploader's copies, where #1360 lives;
 *  - medium: two devices, eight experts (two resident per device), two loaders, ring
 *    depth 2, a planned warmstart by a heat file whose first load fails (so the device
 *    it was for has room a cold expert takes at the first token, and the hot expert,
 *    noted at the second, earns a swap: two tokens are too few for heat alone to earn
 *    one), then shutdown at the second token with its group open (the swap parked on
 *    it is abandoned). Sized for a complete stateful search in seconds.
 *  - heat-header: one device, two experts, room for one, a planned warmstart from a heat
 *    file that makes the second the hotter, with a damaged header (the model's length,
 *    one count off) or, as the tests vary it, no file at all: the heat files the suites
 *    do not draw (test/properties/heat_header.test.ts, the Stryker property test).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../model/scenario/scenario.js';
import { parseScenario } from '../model/scenario/scenario_json.js';
import { MAX_SCENARIO_BYTES, readInputJson } from '../src/input/read_file.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

export function committedScenario(name: string): Scenario {
  const file = join(DIR, `${name}.json`);
  return parseScenario(
    readInputJson(file, { what: 'a scenario', maxBytes: MAX_SCENARIO_BYTES }),
    `properties/scenarios/${name}.json`,
  );
}

export function defaultScenario(over: Partial<Scenario> = {}): Scenario {
  return { ...committedScenario('default'), ...over };
}

export function smallWarmstart(over: Partial<Scenario> = {}): Scenario {
  return { ...committedScenario('small-warmstart'), ...over };
}

export function mediumScenario(over: Partial<Scenario> = {}): Scenario {
  return { ...committedScenario('medium'), ...over };
}
