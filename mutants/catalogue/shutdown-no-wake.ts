/**
 * Mutant shutdown-no-wake (#1340): shutdown sets `stop` and signals `cv` (the uploader)
 * but never broadcasts `cv_take`, so a swap parked on `issue_open`, or a thread in
 * fill_wait, note_block or note_planned, sleeps on and the join hangs.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'shutdown-no-wake',
  title: 'shutdown does not broadcast cv_take',
  history: '#1340: shutdown hung joining an uploader parked on issue_open',
  family: 'liveness after shutdown',
  expectedProperties: ['LIVE-SHUTDOWN', 'LIVE-DEADLOCK', 'SPEC-WAKEUP'],
  patches: [
    {
      file: 'src/tier/shutdown.ts',
      find: '  st.stop = true;\n  yield SIGNAL_CV;\n  yield BROADCAST_TAKE;\n',
      replace: '  st.stop = true;\n  yield SIGNAL_CV;\n',
    },
  ],
};
