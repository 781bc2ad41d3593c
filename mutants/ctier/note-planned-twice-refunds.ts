/**
 * C counterpart of mutant note-planned-twice-refunds
 * (mutants/catalogue/note-planned-twice-refunds.ts): note_planned does not check that the
 * expert is still planned: an expert handed over a second time (a loader's retry) is
 * refused by the enqueue and its reservation given back again, a refund of budget nobody
 * reserved.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'note-planned-twice-refunds',
  title: 'note_planned refunds a reservation it does not hold',
  history: 'a careless engine within the contract: loaders that retry',
  family: 'accounting',
  expectedProperties: ['ACC-BUDGET', 'SPEC-ENQUEUE', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'native/tier/tt_plan.c',
      find: '  if (!s->planned) return 0;\n',
      replace: '',
    },
  ],
};
