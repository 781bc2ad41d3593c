/**
 * Mutant prefer-read-unlocked: prefer-resident routing reads the candidates' residency
 * after the lock is released. The uploader may be making one resident or evicting it at
 * that moment: the route is chosen by a state that never was (a data race in C).
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'prefer-read-unlocked',
  title: 'the prefer-resident choice reads residency without the lock',
  history: 'named by the routing review of the seed engine tier: the choice must read residency under the lock',
  family: 'sync discipline',
  expectedProperties: ['SYNC-DISCIPLINE', 'SPEC-PREFER'],
  patches: [
    {
      file: 'src/tier/tier.ts',
      find: '  yield LOCK;\n  const mask = cands.map((eid) => slotOf(st, layer, eid).resident);\n  yield UNLOCK;\n',
      replace: '  yield LOCK;\n  yield UNLOCK;\n  const mask = cands.map((eid) => slotOf(st, layer, eid).resident);\n',
    },
  ],
};
