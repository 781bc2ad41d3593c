/**
 * A careless engine's habits: what it does that the tier's contract still allows. A
 * loader that hands an expert over twice (a retry, overlapping loaders), a plan asked for
 * twice, fill_wait called twice in a row, the RAM of an expert never planned handed back.
 * The reference says what the tier must do then; a tier that relies on a tidy caller
 * fails the refinement.
 */
export const CARELESS_HABITS = ['hand-over-twice', 'plan-twice', 'fill-wait-twice', 'release-unplanned'] as const;
export type CarelessHabit = (typeof CARELESS_HABITS)[number];
