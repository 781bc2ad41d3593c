/**
 * Mutant fill-wait-with-group-open: the engine's refill runs fill_wait right after issuing
 * the first layer's groups, while they are still open. A swap enqueued by that issue's
 * tick waits for the group to close; fill_wait waits for the swap: deadlock. The driver's
 * own contract (DRV-FILL-WAIT) names the call before the deadlock forms; without that
 * check the deadlock detection names the two threads and what each waits on.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'fill-wait-with-group-open',
  title: 'fill_wait called while a group is open',
  history: 'reviewers named it: the reason fill_wait must never be called with a group open',
  family: 'deadlock freedom',
  expectedProperties: ['DRV-FILL-WAIT', 'LIVE-DEADLOCK', 'LIVE-SHUTDOWN'],
  patches: [
    {
      file: 'src/engine/driver.ts',
      find: '  const mask = yield* tier.issue(route);\n',
      replace:
        '  const mask = yield* tier.issue(route);\n' +
        '  if (at === plan.refillAfterToken && layer === 0) yield* tier.fillWait();\n',
    },
    {
      file: 'src/engine/driver.ts',
      find: '    if (token - firstToken === plan.refillAfterToken) yield* tier.fillWait();\n',
      replace: '',
    },
  ],
};
