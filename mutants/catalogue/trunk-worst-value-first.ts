/**
 * Mutant trunk-worst-value-first: the trunk placer takes the offers worst value per
 * charged byte first. Every matrix still lands somewhere or on the CPU and every charge
 * is counted, so only a check of the placement itself sees it: the reference's order
 * (best payload per charged byte first), exercised by trunk matrices of mixed sizes.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'trunk-worst-value-first',
  title: 'the trunk placer takes the worst value per byte first',
  history: 'a blind spot of the generators: every trunk matrix was one size, so the order never mattered',
  family: 'refinement',
  // SPEC-GATE: the trunk is placed by trunk_place, whose step the reference checks as the gate's (admitted at DEAD)
  expectedProperties: ['SPEC-GATE', 'SPEC-INIT', 'SPEC-STATE'],
  patches: [
    {
      file: 'src/tier/trunk_place.ts',
      find: 'sort((a, b) => (value[b] ?? 0) - (value[a] ?? 0))',
      replace: 'sort((a, b) => (value[a] ?? 0) - (value[b] ?? 0))',
    },
  ],
};
