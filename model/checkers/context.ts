/**
 * What a checker may read: the tier's state and the simulated world. Read only.
 */
import type { TierState } from '../../src/tier/state.js';
import type { SimulatedWorld } from '../sim_engine/sim_world.js';

export interface CheckContext {
  readonly st: TierState;
  readonly world: SimulatedWorld;
}
