/**
 * C counterpart of mutant planned-null-keeps-reservation
 * (mutants/catalogue/planned-null-keeps-reservation.ts): note_planned with no weights
 * returns without giving the reservation back: the budget leaks for the life of the
 * process and the expert is never reconsidered.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'planned-null-keeps-reservation',
  title: 'note_planned with no weights keeps its reservation',
  history: '#1331: a loader that could not read an expert left its budget reserved forever',
  family: 'accounting',
  expectedProperties: ['SPEC-PLAN', 'ACC-BUDGET', 'POST-SHUTDOWN', 'POST-RESIDENCY', 'SPEC-ENQUEUE'],
  patches: [
    {
      file: 'native/tier/tt_plan.c',
      find: '  if (!s->planned) return 0;\n',
      replace: '  if (!s->planned || ram == NULL) return 0;\n',
    },
  ],
};
