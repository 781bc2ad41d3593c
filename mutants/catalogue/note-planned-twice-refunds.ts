/**
 * Mutant note-planned-twice-refunds: note_planned drops its guard that the expert is
 * still planned, so a second hand-over of one expert (a loader's retry, two loaders that
 * overlap) finds it queued or resident, is refused by enqueue, and gives back a
 * reservation that the first hand-over already turned into a charge: the budget goes
 * negative and the device is over-committed.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'note-planned-twice-refunds',
  title: 'note_planned refunds the reservation of an expert handed over twice',
  history: 'a blind spot of the generators: the driver handed each planned expert over exactly once',
  family: 'accounting',
  expectedProperties: ['ACC-BUDGET', 'SPEC-ENQUEUE', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'src/tier/plan.ts',
      find: '  if (slot.planned) {\n    if (ram !== null) {\n',
      replace: '  {\n    if (ram !== null) {\n',
    },
  ],
};
