/**
 * C counterpart of mutant abandon-frees-victim
 * (mutants/catalogue/abandon-frees-victim.ts): at shutdown with a group open, the swap
 * frees its victim instead of abandoning: the open group reads a freed tensor.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'abandon-frees-victim',
  title: 'the abandon branch never runs: the swap frees its victim under the open group',
  history: 'a review of the shutdown path: abandoning keeps the victim for the group still in flight',
  family: 'device memory safety',
  expectedProperties: ['MEM-DEVICE', 'SPEC-UPLOADER', 'SPEC-WAKEUP'],
  patches: [
    {
      file: 'native/tier/tt_uploader.c',
      find: '  if (g->stop && g->issue_open) {\n',
      replace: '  if (0) {\n',
    },
  ],
};
