/**
 * C counterpart of mutant enqueue-after-stop (mutants/catalogue/enqueue-after-stop.ts):
 * enqueue accepts entries after stop: an entry enqueued once the uploader is gone stays
 * queued with its staging copy.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'enqueue-after-stop',
  title: 'enqueue accepts entries after stop',
  history: 'a note_block woken by shutdown enqueued what nobody would upload',
  family: 'nothing left after shutdown',
  expectedProperties: ['SPEC-ENQUEUE', 'SPEC-WAKEUP', 'POST-SHUTDOWN', 'ACC-INFLIGHT', 'LIVE-SHUTDOWN'],
  patches: [
    {
      file: 'native/tier/tt_enqueue.c',
      find: '  if (g->stop) return refuse(t, layer, eid, TT_REFUSE_STOP);\n',
      replace: '',
    },
  ],
};
