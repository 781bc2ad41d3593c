/**
 * A tier call as the reference runs it: a small program whose steps are the call's
 * critical sections (and the ops between them). The refinement check calls `step` at
 * each of the tier thread's releases of mx and at its return, with the ops the thread
 * did since the last step; the step performs the protocol's atomic action and says how
 * it ends, which must be how the tier's section ended.
 */
import type { SpecIo, Step } from './io.js';
import type { SpecFamily, SpecState } from './state.js';

export interface SpecCall {
  /** the family a divergence in this call's current step belongs to, unless a finer one applies */
  readonly family: SpecFamily;
  /** set while a step runs: the step's LFRU tick decayed heats or ran a swap round */
  readonly tickOutcome?: { decayed: boolean; round: boolean } | null;
  step(s: SpecState, io: SpecIo): Step;
}

export const UNLOCK: Step = { release: 'unlock' };
export const WAIT_CV: Step = { release: 'wait-cv' };
export const WAIT_TAKE: Step = { release: 'wait-take' };
export const GUNLOCK: Step = { release: 'gunlock' };
export const WAIT_GCV: Step = { release: 'wait-gcv' };
