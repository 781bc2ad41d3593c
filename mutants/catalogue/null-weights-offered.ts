/**
 * Mutant null-weights-offered: the planned warmstart offers each planned expert whatever
 * RAM copy the engine has (null for experts it has none of) instead of loading one, and
 * reports the plan as the residency. "N in VRAM" is then false, and the CPU fallback for
 * the experts counted as resident has no weights.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'null-weights-offered',
  title: 'warmstart offers null weights and reports the plan as residency',
  history: "the engine's log said N experts in VRAM while some had never been uploaded",
  family: 'fill_wait residency',
  expectedProperties: ['POST-RESIDENCY', 'COMP-MISS-WEIGHTS', 'PROG-FILL'],
  patches: [
    {
      file: 'src/engine/driver.ts',
      find: "    const ram = yield* perform({ k: 'loadRam', layer: key.layer, eid: key.eid, why: 'warmstart' });\n",
      replace: "    const ram = yield* perform({ k: 'ramOf', layer: key.layer, eid: key.eid });\n",
    },
    {
      file: 'src/engine/driver.ts',
      find: "  yield { k: 'mark', what: 'residency', detail: String(resident) };\n",
      replace: "  yield { k: 'mark', what: 'residency', detail: String(planned.length) };\n",
    },
  ],
};
