/**
 * The committed scenarios (properties/scenarios/*.json), read through the one scenario
 * parser: the only copy of each, shared by the benchmark, the tests and `--scenario`.
 *
 *  - default: two devices, swaps, a planned warmstart with two loaders, a ring small
 *    enough to fill, a re-fill between tokens, shutdown at the end;
 *  - small-warmstart: one device, four experts, two loaders, ring depth 2, a planned
 *    warmstart then shutdown (no tokens), sized for exhaustive search: four threads
 *    racing over the ring, fill_wait and the uploader's copies, where #1360 lives.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../model/scenario/scenario.js';
import { parseScenario } from '../model/scenario/scenario_json.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

export function committedScenario(name: string): Scenario {
  const file = join(DIR, `${name}.json`);
  return parseScenario(JSON.parse(readFileSync(file, 'utf8')), `properties/scenarios/${name}.json`);
}

export function defaultScenario(over: Partial<Scenario> = {}): Scenario {
  return { ...committedScenario('default'), ...over };
}

export function smallWarmstart(over: Partial<Scenario> = {}): Scenario {
  return { ...committedScenario('small-warmstart'), ...over };
}
