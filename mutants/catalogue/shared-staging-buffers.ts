/**
 * Mutant shared-staging-buffers: a resident dense GEMV uses the expert group's device
 * input and output buffers while that group is in flight: the group's input is
 * overwritten and the GEMV's output lands where take reads, with no error.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'shared-staging-buffers',
  title: "a dense GEMV uses the open group's buffers",
  history: 'b86e55e: wrong tokens, no error, until the dense path got its own buffers',
  family: 'buffer ownership',
  expectedProperties: ['MEM-BUFFER-OWNER', 'COMP-EXACT-ONCE'],
  patches: [
    {
      file: 'src/tier/trunk.ts',
      find: 'inBuf: `dense_in${dev}`, outBuf: `dense_out${dev}`',
      replace: 'inBuf: `group_in${dev}`, outBuf: `group_out${dev}`',
    },
  ],
};
