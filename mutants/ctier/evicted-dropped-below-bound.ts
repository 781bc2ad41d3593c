/**
 * C counterpart of mutant evicted-dropped-below-bound
 * (mutants/catalogue/evicted-dropped-below-bound.ts): the eviction ring counts itself full
 * one entry early, so an eviction it had room for is dropped and never reported.
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
      file: 'native/tier/tt_evict.c',
      find: '  if (g->ev_n >= cap) {\n',
      replace: '  if (g->ev_n >= cap - 1) {\n',
    },
  ],
};
