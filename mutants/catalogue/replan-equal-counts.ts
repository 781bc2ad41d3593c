/**
 * Mutant replan-equal-counts: re-plan swaps when the newcomer's count equals the victim's
 * (a never-routed newcomer for a never-routed resident). Residents thrash: budget-neutral
 * swaps that gain nothing.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'replan-equal-counts',
  title: 're-plan swaps on an equal count',
  history: 'named by the re-plan review of the seed engine tier: swap only on a strictly greater count',
  family: 'refinement',
  expectedProperties: ['SPEC-REPLAN'],
  patches: [
    {
      file: 'src/tier/replan.ts',
      find: 'if (v === undefined || c === undefined || count(c) <= count(v)) break;',
      replace: 'if (v === undefined || c === undefined || count(c) < count(v)) break;',
    },
  ],
};
