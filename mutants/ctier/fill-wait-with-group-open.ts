/**
 * C counterpart of mutant fill-wait-with-group-open
 * (mutants/catalogue/fill-wait-with-group-open.ts): the engine calls fill_wait with its
 * group open (the refill moved inside the token, right after layer 0's issue): a swap
 * parked on the open group waits for the caller, who waits for the swap.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'fill-wait-with-group-open',
  title: 'fill_wait is called while a group is open',
  history: 'a refill placed inside the token deadlocked against a swap',
  family: 'deadlock freedom',
  expectedProperties: ['DRV-FILL-WAIT', 'LIVE-DEADLOCK', 'LIVE-SHUTDOWN'],
  patches: [
    {
      file: 'native/tier/harness/th_driver.c',
      find: '  th_call_issue(e, layer, rt->eids, rt->n, x, mask);\n',
      replace:
        '  th_call_issue(e, layer, rt->eids, rt->n, x, mask);\n  if (at == s->refill_after && layer == 0) th_call_simple(e, TT_FN_FILL_WAIT);\n',
    },
    {
      file: 'native/tier/harness/th_driver.c',
      find: '    if (at == s->refill_after) th_call_simple(e, TT_FN_FILL_WAIT);\n',
      replace: '',
    },
  ],
};
