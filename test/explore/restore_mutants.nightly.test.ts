/**
 * Going on from saved states finds what replaying finds on the catalogue mutants the
 * committed configurations catch, beyond the one npm test compares
 * (restore_mutants.test.ts). Nightly (npm run test:nightly): each comparison copies the
 * sources and runs two searches, a minute on two busy cores.
 */
import { describe, it } from 'vitest';
import { CAUGHT, restoreMatchesOnMutant } from './restore_mutants_case.js';

describe('the DPOR search going on from saved states, on the other catalogue mutants', () => {
  for (const [id, scenario] of CAUGHT.filter(([m]) => m !== 'shutdown-no-wake'))
    it(`finds what the replaying search finds: ${id} on ${scenario}`, () => restoreMatchesOnMutant(id, scenario));
});
