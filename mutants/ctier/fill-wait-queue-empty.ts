/**
 * C counterpart of mutant fill-wait-queue-empty
 * (mutants/catalogue/fill-wait-queue-empty.ts): fill_wait waits for the ring to be empty
 * instead of for nothing to be in flight: the uploader frees the ring slot at dequeue,
 * before it copies, so fill_wait returns while the last upload still copies from its
 * staging copy.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'fill-wait-queue-empty',
  title: 'fill_wait waits for qn == 0 instead of inflight == 0',
  history: '#1360: warmstart freed RAM copies while the last upload was still copying from them',
  family: 'fill_wait residency',
  expectedProperties: ['POST-FILL-WAIT', 'PROG-FILL', 'SPEC-FILL'],
  patches: [
    {
      file: 'native/tier/tt_plan.c',
      find: '    while (g->inflight > 0 && !g->stop) tt_wait_take(t);\n',
      replace: '    while (g->qn > 0 && !g->stop) tt_wait_take(t);\n',
    },
  ],
};
