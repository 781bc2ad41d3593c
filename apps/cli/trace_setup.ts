/**
 * What `npm run check-trace -- --reference FILE` replays a log against: the run's
 * configuration, given as a tierlab scenario (a file `npm run properties -- --scenario`
 * takes) or a C tier counterexample (its scenario), turned into the tier's configuration,
 * the world's shape and the heat file on disk by the same mapping the scheduled harness
 * uses (model/ctier/harness_config.ts), so a log of the scenario's run is judged as that
 * run is under tierlab's scheduler.
 *
 * Invariant: a file that is neither is bad input (one line naming it, exit 2).
 */
import { referenceSetup } from '../../model/ctier/harness_config.js';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { claimsCounterexample, counterexampleOf } from '../../properties/counterexample_file.js';
import type { ReferenceSetup } from '../../src/check/trace/trace_reference.js';
import { MAX_SCENARIO_BYTES, readInputJson } from '../../src/input/read_file.js';

export function referenceSetupOf(file: string): ReferenceSetup {
  const data = readInputJson(file, { what: 'a scenario or a counterexample', maxBytes: MAX_SCENARIO_BYTES });
  const scenario = claimsCounterexample(data) ? counterexampleOf(data, file).scenario : parseScenario(data, file);
  return referenceSetup(scenario);
}
