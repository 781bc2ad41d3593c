/**
 * C counterpart of mutant driver-already-as-fresh-start
 * (mutants/catalogue/driver-already-as-fresh-start.ts): the engine takes a second init's
 * answer (already: nothing changed) as the run's start, so a run whose first init
 * succeeded skips its warmstart.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'driver-already-as-fresh-start',
  title: "the driver takes a second init's 'already' for the run's start",
  history: "a blind spot of the checks: the driver's decisions were never held to the tier's answers",
  family: 'driver',
  expectedProperties: ['DRV-WARMSTART'],
  patches: [
    {
      file: 'native/tier/harness/th_driver.c',
      find: '    if (started != TT_INIT_ACTIVE) started = again;\n',
      replace: '    started = again;\n',
    },
  ],
};
