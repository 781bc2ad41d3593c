/**
 * Mutant trunk-not-gated (later defect (e)): a trunk GEMV looks its matrix up but is not
 * counted in the gate while it runs. Teardown's exclusive section, waiting only for the
 * callers inside, frees the trunk tensor while the GEMV still reads it.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'trunk-not-gated',
  title: 'a trunk GEMV does not enter the gate',
  history: 'found in review of the seed engine tier: teardown freed a trunk tensor under a running GEMV',
  family: 'device memory safety',
  expectedProperties: ['MEM-DEVICE', 'MEM-SYNC', 'SPEC-GATE'],
  patches: [
    {
      file: 'src/tier/trunk.ts',
      find: '  if (admitted) {\n    g.live++;\n    if (dead) resident = g.deadTrunk[index] ?? null;\n  }\n',
      replace: '  if (admitted && dead) resident = g.deadTrunk[index] ?? null;\n',
    },
    {
      file: 'src/tier/trunk.ts',
      find: '  yield* leave(g);\n  return resident !== null;\n',
      replace: '  return resident !== null;\n',
    },
  ],
};
