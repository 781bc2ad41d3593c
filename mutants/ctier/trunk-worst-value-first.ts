/**
 * C counterpart of mutant trunk-worst-value-first
 * (mutants/catalogue/trunk-worst-value-first.ts): the trunk placer offers the matrices
 * worst payload per charged byte first: the devices fill with the matrices that save the
 * least.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'trunk-worst-value-first',
  title: 'the trunk is placed worst value per byte first',
  history: 'a blind spot of the generators: trunk matrices were all of one size',
  family: 'refinement',
  expectedProperties: ['SPEC-INIT', 'SPEC-STATE'],
  patches: [
    {
      file: 'native/tier/tt_trunk.c',
      find: '  if (vi != vj) return vi > vj ? -1 : 1;\n',
      replace: '  if (vi != vj) return vi < vj ? -1 : 1;\n',
    },
  ],
};
