/**
 * Mutant driver-already-as-fresh-start: the engine driver takes a second init's answer
 * ('already': the tier was running and nothing changed) as the run's start, so a run
 * whose first init succeeded skips its warmstart. Nothing the tier does is wrong: only a
 * check of the driver's own decisions sees it.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'driver-already-as-fresh-start',
  title: "the driver takes a second init's 'already' for the run's start and skips the warmstart",
  history: "a blind spot of the checks: the driver's decisions were never held to the tier's answers",
  family: 'driver',
  expectedProperties: ['DRV-WARMSTART'],
  patches: [
    {
      file: 'src/engine/driver.ts',
      find: "    if (started.state !== 'active') started = again;\n",
      replace: '    started = again;\n',
    },
  ],
};
