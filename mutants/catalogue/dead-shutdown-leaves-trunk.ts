/**
 * Mutant dead-shutdown-leaves-trunk (later defect (d)): a shutdown that finds the tier
 * DEAD returns at once, although a trunk placed while DEAD is live or still uploading.
 * The trunk stays resident; a later init of the same shape is answered by the backend's
 * shape cache with the old tensor, no copy: the new generation computes on the old
 * weights.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'dead-shutdown-leaves-trunk',
  title: 'a shutdown at DEAD returns at once, a trunk placed while DEAD still live',
  history: 'found in review of the seed engine tier: a later init computed on the previous generation trunk',
  family: 'nothing left after shutdown',
  expectedProperties: ['POST-SHUTDOWN', 'MEM-GENERATION', 'SPEC-GATE', 'SPEC-SHUTDOWN'],
  patches: [
    {
      file: 'src/tier/shutdown.ts',
      find: "  } else if (g.trunkBusy || g.deadTrunk.some((d) => d !== null)) {\n    role = 'dead-trunk';\n  }\n",
      replace: '  }\n',
    },
  ],
};
