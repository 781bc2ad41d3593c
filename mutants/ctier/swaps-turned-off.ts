/**
 * C counterpart of mutant swaps-turned-off (mutants/catalogue/swaps-turned-off.ts): the
 * tier turns LFRU swaps off on every backend. Every step is still safe and every count
 * adds up; the tier just never promotes a hot expert past the warmstart, which only the
 * reference, deciding for itself whether swaps happen, sees.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'swaps-turned-off',
  title: 'the tier turns LFRU swaps off on every backend',
  history: "a blind spot of the refinement: the reference read whether to swap from the tier's own configuration",
  family: 'refinement',
  expectedProperties: ['SPEC-ADMISSION', 'SPEC-ENQUEUE', 'SPEC-STATE'],
  patches: [
    {
      file: 'native/tier/tt_init.c',
      find: '  g->swaps = cfg->want_swaps && t->be.reclaims;\n',
      replace: '  g->swaps = 0;\n',
    },
  ],
};
