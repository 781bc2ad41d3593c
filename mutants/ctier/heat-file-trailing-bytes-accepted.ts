/**
 * C counterpart of mutant heat-file-trailing-bytes-accepted
 * (mutants/catalogue/heat-file-trailing-bytes-accepted.ts): the heat file reader accepts a
 * file longer than this model's: a file with trailing bytes is read as this model's heat.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'heat-file-trailing-bytes-accepted',
  title: 'the heat file reader accepts trailing bytes',
  history: 'a blind spot of the generators: heat files never had trailing bytes',
  family: 'refinement',
  expectedProperties: ['SPEC-HEAT-FILE', 'SPEC-INIT', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'native/tier/tt_heat.c',
      find: '  if (bytes == NULL || n != tt_heat_file_bytes(layers, experts)) return 0;\n',
      replace: '  if (bytes == NULL || n < tt_heat_file_bytes(layers, experts)) return 0;\n',
    },
  ],
};
