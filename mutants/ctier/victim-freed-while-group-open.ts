/**
 * C counterpart of mutant victim-freed-while-group-open
 * (mutants/catalogue/victim-freed-while-group-open.ts): the swap frees its victim without
 * waiting for the open group to close: the group in flight computes with freed memory.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'victim-freed-while-group-open',
  title: 'the swap frees its victim without waiting for issue_open to clear',
  history: 'the LFRU swap was first written without the wait on the group window',
  family: 'device memory safety',
  expectedProperties: ['MEM-DEVICE', 'SPEC-UPLOADER'],
  patches: [
    {
      file: 'native/tier/tt_uploader.c',
      find: '  while (g->issue_open && !g->stop) tt_wait_take(t);\n',
      replace: '',
    },
  ],
};
