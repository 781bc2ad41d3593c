/**
 * The Promela model of `properties/scenarios/small-warmstart.json` grown to NE experts
 * (budget for every one), NL loader threads and a ring of QCAP slots on one device: the
 * model Spin checks beside tierlab's complete search of the same scenario
 * (spin_bench.ts). The text is the anchor generator's (spin_model_parts.ts); with `gate`,
 * the lifecycle gate the tier now passes at every entry point is added
 * (spin_model_gate.ts), so the two count the same protocol.
 *
 * Invariant: NE at most 8 (the model keeps shutdown's release list in a byte), NL and
 * QCAP at least 1; the same sizes give the same text; without `gate`, the anchor's.
 */
import { globals, helpers, preamble, type Dims } from './spin_model_parts.js';
import { GATE_GLOBALS, GATE_HELPERS } from './spin_model_gate.js';
import { loader, MAIN_HEAD, mainEnd, mainStart, uploader } from './spin_model_threads.js';

const range = (n: number, from = 0): number[] => Array.from({ length: Math.max(0, n - from) }, (_, i) => from + i);

export function promelaModel(NE: number, NL: number, QCAP: number, gate = false): string {
  if (!(NE >= 1 && NE <= 8 && NL >= 1 && QCAP >= 1))
    throw new Error(`the Promela model takes 1-8 experts, 1 or more loaders and ring slots (${NE}, ${NL}, ${QCAP})`);
  const NT = 2 + NL;
  const d: Dims = { NE, NL, NT, QCAP, E: range(NE), T: range(NT), L: range(NT, 2), R: range(QCAP), G: gate };
  const state = gate ? [globals(d), GATE_GLOBALS, helpers(d), GATE_HELPERS] : [globals(d), helpers(d)];
  return [preamble(d), ...state, MAIN_HEAD, mainStart(d), mainEnd(d), uploader(), loader(d)].join('\n');
}
