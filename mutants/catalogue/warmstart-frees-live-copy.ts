/**
 * Mutant warmstart-frees-live-copy (#1341): after fill_wait the warmstart frees the RAM
 * copy of every planned expert without asking the tier to forget its pointer first; the
 * tier still points at the copies of experts that did not become resident (and of every
 * expert it later evicts), and reads them on its next upload of one.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'warmstart-frees-live-copy',
  title: 'warmstart frees RAM copies the tier still points at',
  history: '#1341: use after free on the next upload after a warmstart',
  family: 'RAM lifetime',
  expectedProperties: ['MEM-RAM'],
  patches: [
    {
      file: 'src/engine/driver.ts',
      find: "    if (yield* tier.releaseRam(key.layer, key.eid)) yield { k: 'freeRam', layer: key.layer, eid: key.eid };\n",
      replace: "    yield { k: 'freeRam', layer: key.layer, eid: key.eid };\n",
    },
  ],
};
