/**
 * C counterpart of mutant take-failure-drops-experts
 * (mutants/catalogue/take-failure-drops-experts.ts): after a failed take the engine leaves
 * the lost experts out of the output and nobody computes them.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'take-failure-drops-experts',
  title: 'a failed take drops its experts from the output',
  history: 'wrong tokens after a device fault, silently',
  family: 'exactly once',
  expectedProperties: ['COMP-EXACT-ONCE'],
  patches: [
    {
      file: 'native/tier/harness/th_driver.c',
      find: '  if (ok != 1) {\n    for (int k = 0; k < rt->n; k++) want[k] = mask[k] && !parts[k].set;\n    compute_on_cpu(e, token, layer, rt, want, parts);\n  }\n',
      replace: '',
    },
  ],
};
