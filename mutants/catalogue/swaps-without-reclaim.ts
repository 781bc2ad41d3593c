/**
 * Mutant swaps-without-reclaim: the tier allows LFRU swaps on a backend whose arena never
 * gives freed memory back (the Vulkan-like fill-once variant); every swap leaks one
 * expert's worth of VRAM.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'swaps-without-reclaim',
  title: 'swaps follow the wish, not whether the backend reclaims memory',
  history: 'the Vulkan backend ran out of VRAM after enough swaps: the arena never frees a slice',
  family: 'device accounting',
  expectedProperties: ['VARIANT-FILL-ONCE', 'DEV-BUDGET'],
  patches: [
    {
      file: 'src/tier/variants.ts',
      find: 'swaps: o.wantSwaps && backend.reclaims',
      replace: 'swaps: o.wantSwaps',
    },
  ],
};
