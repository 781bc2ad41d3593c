/**
 * Mutant abandon-frees-victim: at shutdown, with a group still open, the parked swap goes
 * ahead and frees its victim instead of abandoning the swap; the open group then reads a
 * freed tensor.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'abandon-frees-victim',
  title: 'a swap at shutdown frees its victim while a group is open instead of abandoning',
  history: 'reviewers of the #1340 fix: the abandon branch is the only thing between shutdown and a use after free',
  family: 'device memory safety',
  expectedProperties: ['MEM-DEVICE', 'SPEC-WAKEUP', 'SPEC-UPLOADER'],
  patches: [
    {
      file: 'src/tier/uploader.ts',
      find: '      if (st.stop && st.issueOpen) {\n',
      // the abandon branch never runs: the swap carries on and frees its victim
      replace: '      if (false as boolean) {\n',
    },
  ],
};
