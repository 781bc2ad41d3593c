/**
 * Mutant replan-pending-lost: re-plan starts as many swaps as the ring takes and drops the
 * rest instead of keeping them pending for later calls and decode ticks. The most-routed
 * newcomers past the ring's room never come in.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'replan-pending-lost',
  title: 're-plan loses the pairs the ring had no room for',
  history: 'named by the re-plan review of the seed engine tier: the rest stay pending and drain later',
  family: 'refinement',
  expectedProperties: ['SPEC-REPLAN'],
  patches: [
    {
      file: 'src/tier/replan.ts',
      find: '  yield* startPendingLocked(st, st.pending.length);\n  yield UNLOCK;\n',
      replace: '  yield* startPendingLocked(st, st.pending.length);\n  st.pending = [];\n  yield UNLOCK;\n',
    },
  ],
};
