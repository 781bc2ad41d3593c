/**
 * Mutant victim-freed-while-group-open: the swap frees its victim without waiting for
 * `issue_open` to clear; the victim may be in the group in flight (the tick that chose it
 * runs inside issue, after the group was built).
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'victim-freed-while-group-open',
  title: 'a swap does not wait for the open group before freeing its victim',
  history: 'reviewers named it: the reason the uploader waits on issue_open at all',
  family: 'device memory safety',
  expectedProperties: ['MEM-DEVICE', 'SPEC-UPLOADER'],
  patches: [
    {
      file: 'src/tier/uploader.ts',
      find: '      while (st.issueOpen && !st.stop) yield WAIT_TAKE;\n',
      replace: '',
    },
  ],
};
