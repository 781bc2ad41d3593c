/**
 * Mutant sync-waits-on-queue: in synchronous mode issue waits for the ring to be empty
 * instead of for nothing to be in flight. The uploader frees the ring slot before it
 * copies, so issue builds its group while a swap chosen at the last tick is still on its
 * way: residency is not deterministic (#1360's shape, in the sync mode).
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
      file: 'src/tier/group.ts',
      find: 'if (st.cfg.syncUploads) while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;',
      replace: 'if (st.cfg.syncUploads) while (st.qn > 0 && !st.stop) yield WAIT_TAKE;',
    },
  ],
};
