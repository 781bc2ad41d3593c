/**
 * Mutant planned-null-keeps-reservation (#1331): note_planned handed null weights returns
 * at once, without giving the reservation back or clearing `planned`: the budget leaks for
 * the life of the process and the expert is never reconsidered.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'planned-null-keeps-reservation',
  title: 'note_planned with null weights keeps the reservation',
  history: '#1331: experts without RAM weights kept their planned budget forever',
  family: 'accounting',
  expectedProperties: ['ACC-BUDGET', 'POST-SHUTDOWN', 'POST-RESIDENCY', 'SPEC-ENQUEUE'],
  patches: [
    {
      file: 'src/tier/plan.ts',
      find: '  if (slot.planned) {\n    if (ram !== null) {\n',
      replace:
        '  if (slot.planned && ram === null) {\n' +
        '    yield UNLOCK;\n' +
        '    return false;\n' +
        '  }\n' +
        '  if (slot.planned) {\n' +
        '    if (ram !== null) {\n',
    },
  ],
};
