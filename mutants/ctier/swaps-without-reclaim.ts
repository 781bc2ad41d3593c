/**
 * C counterpart of mutant swaps-without-reclaim
 * (mutants/catalogue/swaps-without-reclaim.ts): swaps run on a backend whose arena never
 * reclaims freed memory: each swap leaks one expert of device memory.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'swaps-without-reclaim',
  title: 'swaps run on a fill-once backend',
  history: 'the Vulkan arena kept every swapped-out expert: swaps must follow what the backend can do',
  family: 'device accounting',
  expectedProperties: ['VARIANT-FILL-ONCE', 'DEV-BUDGET'],
  patches: [
    {
      file: 'native/tier/tt_init.c',
      find: '  g->swaps = cfg->want_swaps && t->be.reclaims;\n',
      replace: '  g->swaps = cfg->want_swaps;\n',
    },
  ],
};
