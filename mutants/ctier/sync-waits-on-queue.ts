/**
 * C counterpart of mutant sync-waits-on-queue (mutants/catalogue/sync-waits-on-queue.ts):
 * in synchronous mode issue waits for the ring to be empty instead of for nothing to be
 * in flight. The uploader frees the ring slot before it copies, so issue builds its group
 * while a swap chosen at the last tick is still on its way.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'sync-waits-on-queue',
  title: 'synchronous issue waits on the ring count, not the in-flight count',
  history: 'named by the sync mode review of the seed engine tier, after #1360',
  family: 'refinement',
  expectedProperties: ['SPEC-SYNC-MODE'],
  patches: [
    {
      file: 'native/tier/tt_issue.c',
      find: '    while (g->inflight > 0 && !g->stop) tt_wait_take(t);\n',
      replace: '    while (g->qn > 0 && !g->stop) tt_wait_take(t);\n',
    },
  ],
};
