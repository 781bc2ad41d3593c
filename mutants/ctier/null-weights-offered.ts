/**
 * C counterpart of mutant null-weights-offered
 * (mutants/catalogue/null-weights-offered.ts): the engine's loaders offer the tier the RAM
 * copy the engine already has (none for an expert it never loaded) instead of loading one,
 * and the warmstart reports its plan as its residency.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'null-weights-offered',
  title: 'the warmstart offers experts with no RAM copy and reports the plan as residency',
  history: 'a warmstart that said "N in VRAM" while some of them had never been copied',
  family: 'fill_wait residency',
  expectedProperties: ['POST-RESIDENCY', 'COMP-MISS-WEIGHTS', 'PROG-FILL'],
  patches: [
    {
      file: 'native/tier/harness/th_driver.c',
      find: '    void *ram = th_ram_load(ld->e, k.layer, k.eid, 1);\n',
      replace: '    void *ram = th_ram_current(ld->e, k.layer, k.eid);\n',
    },
    {
      file: 'native/tier/harness/th_driver.c',
      find: '  th_log_engine(e->log, TH_EV_MARK, TH_MARK_RESIDENCY, resident, 0, 0, 0, 0, 0);\n',
      replace: '  (void)resident;\n  th_log_engine(e->log, TH_EV_MARK, TH_MARK_RESIDENCY, total, 0, 0, 0, 0, 0);\n',
    },
  ],
};
