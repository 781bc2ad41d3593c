/**
 * C counterpart of mutant issue-stride-overrun
 * (mutants/catalogue/issue-stride-overrun.ts): each device's input block is strided by 8
 * rows instead of 32: with two devices and a wide top-k, device 1's rows land in device
 * 0's block.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'issue-stride-overrun',
  title: "each device's input block is strided by 8 rows instead of 32",
  history: '#1339: device 1 wrote past its block and off the allocation',
  family: 'bounds',
  expectedProperties: ['MEM-BOUNDS'],
  patches: [
    {
      file: 'native/tier/tt_issue.c',
      find: '    int row0 = dev * TT_GROUP_ROWS;\n',
      replace: '    int row0 = dev * 8;\n',
    },
  ],
};
