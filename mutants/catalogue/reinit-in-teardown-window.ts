/**
 * Mutant reinit-in-teardown-window (later defect (b)): shutdown clears the "active" state
 * at its top (the gate goes straight to DEAD) and takes its exclusive section from DEAD.
 * An init arriving in the teardown window is admitted: it initializes the mutex the
 * teardown is about to use again and clears the state; the once-only teardown latch reads
 * unset, so a second shutdown returns before the teardown is complete.
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
      file: 'src/tier/shutdown.ts',
      find: "    g.state = 'TEARING_DOWN';\n    role = 'owner';",
      replace: "    g.state = 'DEAD';\n    role = 'owner';",
    },
    {
      file: 'src/tier/shutdown.ts',
      find: "if (!(yield* enterExclusive(st.gate, 'TEARING_DOWN')).admitted) return 'done';",
      replace: "if (!(yield* enterExclusive(st.gate, 'DEAD')).admitted) return 'done';",
    },
  ],
};
