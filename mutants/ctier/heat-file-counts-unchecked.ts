/**
 * C counterpart of mutant heat-file-counts-unchecked
 * (mutants/catalogue/heat-file-counts-unchecked.ts): the heat file reader checks the magic
 * and the length but not the layer and expert counts: another model's file of the same
 * size is read as this model's heat.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'heat-file-counts-unchecked',
  title: "the heat file reader takes another model's file of the same size",
  history: "a blind spot of the generators: heat files were never another model's of the same size",
  family: 'refinement',
  expectedProperties: ['SPEC-HEAT-FILE', 'SPEC-INIT', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'native/tier/tt_heat.c',
      find: '  if (get_u32(bytes) != TT_HEAT_MAGIC || get_u32(bytes + 4) != (uint32_t)layers ||\n      get_u32(bytes + 8) != (uint32_t)experts)\n',
      replace: '  if (get_u32(bytes) != TT_HEAT_MAGIC)\n',
    },
  ],
};
