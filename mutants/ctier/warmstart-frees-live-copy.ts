/**
 * C counterpart of mutant warmstart-frees-live-copy
 * (mutants/catalogue/warmstart-frees-live-copy.ts): the engine frees the RAM copies of the
 * planned experts after the warmstart without asking the tier first: the tier still points
 * at the copies of the experts it did not upload.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'warmstart-frees-live-copy',
  title: 'the warmstart frees RAM copies the tier still points at',
  history: '#1341: a use after free on the next upload or CPU miss',
  family: 'RAM lifetime',
  expectedProperties: ['MEM-RAM'],
  patches: [
    {
      file: 'native/tier/harness/th_driver.c',
      find: '    if (th_call_release_ram(e, planned[i].layer, planned[i].eid) == 1)\n      th_ram_free(e, planned[i].layer, planned[i].eid);\n',
      replace: '    th_ram_free(e, planned[i].layer, planned[i].eid);\n',
    },
  ],
};
