/**
 * The DPOR search going on from saved states explores what the replaying search explores
 * on the committed small-warmstart and medium configurations: the same schedules, states
 * and violations, a few steps per state. Nightly (npm run test:nightly): each replaying
 * search takes a minute and more on two busy cores; restore.test.ts checks a smaller
 * configuration in npm test.
 */
import { describe, it } from 'vitest';
import { mediumScenario, smallWarmstart } from '../../properties/committed_scenarios.js';
import { restoredLikeReplayed } from './restore_compare.js';

describe('the DPOR search going on from saved states, the committed configurations', () => {
  it('explores what the replaying search explores: small warmstart', () => restoredLikeReplayed(smallWarmstart()));
  it('explores what the replaying search explores: medium', () => restoredLikeReplayed(mediumScenario()));
});
