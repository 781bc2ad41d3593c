/**
 * Mutant enqueue-after-stop: enqueue accepts entries after `stop`. Once the uploader has
 * left, such an entry stays queued forever with its staging copy and its charge.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'enqueue-after-stop',
  title: 'enqueue does not refuse after stop',
  history: 'reviewers named it: a note racing shutdown leaves an entry nobody will ever upload',
  family: 'nothing left after shutdown',
  expectedProperties: [
    'POST-SHUTDOWN',
    'ACC-INFLIGHT',
    'ACC-BUDGET',
    'MEM-HOST',
    'LIVE-SHUTDOWN',
    'SPEC-ENQUEUE',
    'SPEC-WAKEUP',
    // the entry's charge moves the counters the reference keeps at zero after stop
    'SPEC-COUNTERS',
  ],
  patches: [
    {
      file: 'src/tier/enqueue.ts',
      find: '  if (st.stop) return false;\n',
      replace: '',
    },
  ],
};
