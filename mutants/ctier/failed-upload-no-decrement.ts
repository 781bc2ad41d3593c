/**
 * C counterpart of mutant failed-upload-no-decrement
 * (mutants/catalogue/failed-upload-no-decrement.ts): the device-full failure path skips
 * inflight--: the expert stays in flight forever and fill_wait never returns.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'failed-upload-no-decrement',
  title: 'a failed upload does not decrement inflight',
  history: 'the failure path of the upload was written after the success path and missed the decrement',
  family: 'accounting',
  expectedProperties: ['ACC-INFLIGHT', 'POST-FILL-WAIT', 'LIVE-DEADLOCK', 'LIVE-SHUTDOWN', 'POST-SHUTDOWN'],
  patches: [
    {
      file: 'native/tier/tt_uploader.c',
      find: '  s->queued = 0;\n  g->inflight--;\n',
      replace: '  s->queued = 0;\n  if (ok) g->inflight--;\n',
    },
  ],
};
