/**
 * C counterpart of mutant shutdown-no-wake (mutants/catalogue/shutdown-no-wake.ts):
 * shutdown sets stop and signals cv but does not broadcast cv_take: a swap parked on the
 * open group, or a caller in fill_wait, note_block or note_planned, never wakes.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'shutdown-no-wake',
  title: 'shutdown sets stop and signals cv but does not broadcast cv_take',
  history: '#1340: a swap parked on issue_open slept through shutdown; the join hung',
  family: 'liveness after shutdown',
  expectedProperties: ['LIVE-SHUTDOWN', 'LIVE-DEADLOCK', 'LIVE-LOST-WAKEUP', 'SPEC-WAKEUP'],
  patches: [
    {
      file: 'native/tier/tt_shutdown.c',
      find: '  tt_signal_cv(t);\n  tt_broadcast_take(t);\n',
      replace: '  tt_signal_cv(t);\n',
    },
  ],
};
