/**
 * Mutant unlocked-on-check (later defect (a)): every expert entry point tests the tier's
 * lifecycle state with no lock held and is not counted in the gate, then locks mx. A
 * caller descheduled between the test and the lock resumes after a teardown into a
 * destroyed mutex and a freed slot array; the teardown's exclusive section never waited
 * for it. The same shape stood in twelve entry points: here it is the one door they share.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'unlocked-on-check',
  title: "the gate's door tests the state with no lock held and counts nobody",
  history:
    'found in review of the seed engine tier: an entry point tested `on` unlocked, then locked a destroyed mutex',
  family: 'sync-object lifetime',
  expectedProperties: ['MEM-SYNC', 'SPEC-GATE', 'SYNC-DISCIPLINE', 'SAFE-NO-CRASH'],
  patches: [
    {
      file: 'src/tier/gate.ts',
      find: '  yield GLOCK;\n  const admitted = admitsLocked(g, door);\n  if (admitted) g.live++;\n  yield GUNLOCK;\n  return admitted;\n',
      replace: '  return admitsLocked(g, door);\n',
    },
    {
      file: 'src/tier/gate.ts',
      find: '  yield GLOCK;\n  g.live--;\n  if (g.live === 0 && g.wantX > 0) yield BROADCAST_GCV;\n  yield GUNLOCK;\n}',
      replace: '  void g;\n}',
    },
  ],
};
