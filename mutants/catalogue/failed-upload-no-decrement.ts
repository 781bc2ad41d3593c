/**
 * Mutant failed-upload-no-decrement: the device-full failure path of the uploader skips
 * `inflight--`, so fill_wait never returns and the count of entries in flight drifts from
 * the entries really queued or uploading.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'failed-upload-no-decrement',
  title: 'a failed upload skips inflight--',
  history: 'reviewers named it: the failure path of the uploader is the one exit that forgot a decrement',
  family: 'accounting',
  expectedProperties: ['ACC-INFLIGHT', 'POST-FILL-WAIT', 'LIVE-DEADLOCK', 'LIVE-SHUTDOWN', 'POST-SHUTDOWN'],
  patches: [
    {
      file: 'src/tier/uploader.ts',
      find: '    slot.queued = false;\n    st.inflight--;\n    yield BROADCAST_TAKE;\n  }\n',
      replace: '    slot.queued = false;\n    if (ok) st.inflight--;\n    yield BROADCAST_TAKE;\n  }\n',
    },
  ],
};
