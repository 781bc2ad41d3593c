/**
 * C counterpart of mutant trunk-not-gated (mutants/catalogue/trunk-not-gated.ts): a trunk
 * GEMV is admitted by the gate's door but not counted in `live` while it runs, so the
 * teardown's exclusive section, waiting only for the callers inside, may free the trunk
 * tensor the GEMV still reads.
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
      file: 'native/tier/tt_gate.c',
      find: '  if (ok) {\n    g->live++;\n',
      replace: '  if (ok) {\n    if (kind != TT_GATE_TRUNK) g->live++;\n',
    },
    {
      file: 'native/tier/tt_gate.c',
      find: '  pthread_mutex_lock(&g->gmx);\n  g->live--;\n',
      replace: '  pthread_mutex_lock(&g->gmx);\n  if (kind != TT_GATE_TRUNK) g->live--;\n',
    },
  ],
};
