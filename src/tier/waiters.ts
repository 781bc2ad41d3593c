/**
 * The blocking calls (fill_wait, note_block, note_planned) count themselves in and out,
 * mx held, so that shutdown can keep its promise: it does not return while a caller it
 * woke is still inside (a woken caller that re-took mx after the next init would see
 * that run's state, not the stop that woke it).
 */
import type { Gen } from '../ops.js';
import type { TierState } from './state.js';
import { BROADCAST_TAKE } from './sync.js';

export function enterWaitLocked(st: TierState): void {
  st.waitersInside++;
}

/** The last thing a blocking call does before it unlocks: shutdown may be waiting for it. */
export function* leaveWaitLocked(st: TierState): Gen<void> {
  st.waitersInside--;
  if (st.stop) yield BROADCAST_TAKE;
}
