/**
 * Mutant issue-stride-overrun (#1339): each device's block of the input buffer is strided
 * by 8 rows instead of MAX_GROUP_ROWS (32); with two devices and a wide top-k, device 1
 * writes into device 0's block and past the allocation.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'issue-stride-overrun',
  title: 'input blocks strided by 8 rows instead of 32',
  history: '#1339: device 1 wrote past its block and off the input allocation',
  family: 'bounds',
  expectedProperties: ['MEM-BOUNDS'],
  patches: [
    {
      file: 'src/tier/group.ts',
      find: '  return dev * MAX_GROUP_ROWS;\n',
      replace: '  return dev * 8;\n',
    },
  ],
};
