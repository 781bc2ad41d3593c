/**
 * C counterpart of mutant reinit-in-teardown-window
 * (mutants/catalogue/reinit-in-teardown-window.ts): shutdown moves the gate straight to
 * DEAD at its top and takes its exclusive section from DEAD. An init arriving in the
 * teardown window is admitted: it initializes the mutex the teardown is about to use
 * again and clears the state, and a second shutdown returns before the teardown is done.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'reinit-in-teardown-window',
  title: 'shutdown marks the tier DEAD at its top; an init in the window is accepted',
  history:
    'found in review of the seed engine tier: a crash inside the uploader join, and a shutdown that returned early',
  family: 'sync-object lifetime',
  expectedProperties: ['MEM-SYNC', 'POST-SHUTDOWN-RETURN', 'SPEC-GATE', 'POST-SHUTDOWN'],
  patches: [
    {
      file: 'native/tier/tt_gate.c',
      find: '    g->life = TT_LIFE_TEARING_DOWN;\n',
      replace: '    g->life = TT_LIFE_DEAD;\n',
    },
    {
      file: 'native/tier/tt_shutdown.c',
      find: '  if (!tt_gate_enter_x(t, TT_LIFE_TEARING_DOWN, &life)) return;\n',
      replace: '  if (!tt_gate_enter_x(t, TT_LIFE_DEAD, &life)) return;\n',
    },
  ],
};
