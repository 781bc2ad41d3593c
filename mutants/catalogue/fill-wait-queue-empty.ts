/**
 * Mutant fill-wait-queue-empty (#1360): fill_wait waits for the ring to be empty instead
 * of for nothing to be in flight. The uploader frees the ring slot at dequeue, before it
 * copies anything, so fill_wait can return while the last upload is still running and the
 * engine then frees a RAM copy of an expert that is queued, not resident.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'fill-wait-queue-empty',
  title: 'fill_wait waits for qn == 0 instead of inflight == 0',
  history: '#1360: warmstart freed RAM copies while the last upload was still copying from them',
  family: 'fill_wait residency',
  expectedProperties: ['POST-FILL-WAIT', 'MEM-RAM', 'POST-RESIDENCY', 'SPEC-FILL'],
  patches: [
    {
      file: 'src/tier/fill_wait.ts',
      find: 'while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;',
      replace: 'while (st.qn > 0 && !st.stop) yield WAIT_TAKE;',
    },
  ],
};
