/**
 * Mutant swaps-turned-off: the tier's variant turns LFRU swaps off on every backend. Every
 * step is still safe and every count adds up; the tier just never promotes a hot expert
 * past the warmstart. Caught only when the reference decides for itself whether swaps
 * happen (the engine wants them and the backend reclaims), instead of reading the tier's
 * own configuration.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'swaps-turned-off',
  title: 'the tier turns LFRU swaps off on every backend',
  history: "a blind spot of the refinement: the reference read whether to swap from the tier's own configuration",
  family: 'refinement',
  // SPEC-REPLAN: a re-plan's swaps are swaps too, and the reference still makes them
  expectedProperties: ['SPEC-ADMISSION', 'SPEC-ENQUEUE', 'SPEC-REPLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'src/tier/variants.ts',
      find: 'swaps: o.wantSwaps && backend.reclaims,',
      replace: 'swaps: false,',
    },
  ],
};
