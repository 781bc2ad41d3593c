/**
 * C counterpart of mutant shutdown-leaks-tensors
 * (mutants/catalogue/shutdown-leaks-tensors.ts): shutdown joins the uploader but does not
 * free the resident tensors and the staging copies left in the ring.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'shutdown-leaks-tensors',
  title: 'shutdown does not release resident tensors and staging copies',
  history: 'a validation layer counted 21 device allocations that outlived the tier',
  family: 'nothing left after shutdown',
  expectedProperties: ['POST-SHUTDOWN'],
  patches: [
    {
      file: 'native/tier/tt_shutdown.c',
      find: '    for (int p = 0; p < 3 && s->tensors[0] != NULL; p++) tt_be_free(t, dev, s->tensors[p]);\n',
      replace: '',
    },
    {
      file: 'native/tier/tt_shutdown.c',
      find: '  for (int k = 0; k < g->qn; k++)\n    tt_be_unstage(t, g->ring[(g->qh + k) % g->cfg.ring_capacity].staging);\n',
      replace: '',
    },
  ],
};
