/**
 * Mutant heat-file-counts-unchecked: the heat file reader checks the magic and the length
 * but not the layer and expert counts, so another model's file of the same size (its
 * layers and experts the other way round) is read as this model's heat, each expert
 * planned by a stranger's heat.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'heat-file-counts-unchecked',
  title: "the heat file reader takes another model's file of the same size",
  history: "a blind spot of the generators: heat files were never another model's of the same size",
  family: 'refinement',
  expectedProperties: ['SPEC-INIT', 'SPEC-HEAT-FILE', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'src/tier/heat_file.ts',
      find: 'if (v.getUint32(0, true) !== HEAT_MAGIC || v.getUint32(4, true) !== layers || v.getUint32(8, true) !== experts)',
      replace: 'if (v.getUint32(0, true) !== HEAT_MAGIC)',
    },
  ],
};
