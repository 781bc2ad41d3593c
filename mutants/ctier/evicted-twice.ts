/**
 * C counterpart of mutant evicted-twice (mutants/catalogue/evicted-twice.ts):
 * tt_evicted_take reads the eviction ring without removing what it reports, so every later
 * call reports the same evictions again.
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
      file: 'native/tier/tt_evict.c',
      find:
        '    for (; n < max && g->ev_n > 0; n++) {\n' +
        '      out[n] = g->evicted[g->ev_head];\n' +
        '      g->ev_head = (g->ev_head + 1) % TT_EVICT_CAP;\n' +
        '      g->ev_n--;\n' +
        '    }\n',
      replace: '    for (; n < max && n < g->ev_n; n++) out[n] = g->evicted[(g->ev_head + n) % TT_EVICT_CAP];\n',
    },
  ],
};
