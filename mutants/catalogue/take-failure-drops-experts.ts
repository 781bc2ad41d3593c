/**
 * Mutant take-failure-drops-experts: when collecting a device's group fails, those experts
 * are left out of the output and nobody recomputes them on the CPU: wrong output, no error.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'take-failure-drops-experts',
  title: 'experts of a failed take are never recomputed',
  history: 'reviewers named it: the take error path logged and moved on',
  family: 'exactly once',
  expectedProperties: ['COMP-EXACT-ONCE'],
  patches: [
    {
      file: 'src/engine/driver.ts',
      find: '  if (!taken.ok) yield* computeOnCpu(route, parts, (k) => mask[k] === true && parts[k] === null, plan.streaming);\n',
      replace: '',
    },
  ],
};
