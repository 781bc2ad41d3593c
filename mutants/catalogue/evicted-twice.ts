/**
 * Mutant evicted-twice: evicted_take reads the eviction ring without removing what it
 * reports, so every later call reports the same evictions again. The engine rebuilds a
 * CPU copy twice, or serves a miss from a copy it rebuilt for an expert back in VRAM.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'evicted-twice',
  title: 'evicted_take reports an eviction again on the next call',
  history: 'named by the eviction ring review of the seed engine tier: each eviction reported exactly once',
  family: 'eviction ring',
  expectedProperties: ['EVICT-ONCE', 'SPEC-EVICTED'],
  patches: [
    {
      file: 'src/tier/evicted.ts',
      find: 'const out = st.evicted.splice(0, Math.max(0, max));',
      replace: 'const out = st.evicted.slice(0, Math.max(0, max));',
    },
  ],
};
