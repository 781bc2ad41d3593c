/**
 * Mutant evicted-dropped-below-bound: the eviction ring counts itself full one entry
 * early, so an eviction it had room for is dropped (and counted as dropped) and never
 * reported: the engine serves that expert's misses from a stale CPU copy.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'evicted-dropped-below-bound',
  title: 'the eviction ring drops an eviction below its bound',
  history: 'named by the eviction ring review of the seed engine tier: only what overflows may go unreported',
  family: 'eviction ring',
  expectedProperties: ['SPEC-EVICTED', 'EVICT-ONCE'],
  patches: [
    {
      file: 'src/tier/evicted.ts',
      find: 'if (st.evicted.length < st.cfg.evictCapacity) {',
      replace: 'if (st.evicted.length < st.cfg.evictCapacity - 1) {',
    },
  ],
};
