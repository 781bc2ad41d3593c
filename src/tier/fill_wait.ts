/**
 * fill_wait: block until every upload enqueued so far is finished (PROTOCOL.md).
 *
 * Waits on `inflight`, never on the ring count `qn`: the uploader frees the ring slot
 * before it copies anything (#1360). The engine frees RAM copies right after this
 * returns, trusting residency. Must not be called with a group open: a swap waiting on
 * `issue_open` would then wait on the caller, who waits on the swap. Refused at the
 * gate's door (tier.ts) it returns 'off'; woken by a shutdown it returns 'stopped'.
 */
import type { Gen } from '../ops.js';
import { LOCK, UNLOCK, WAIT_TAKE } from './sync.js';
import type { TierState } from './state.js';

export function* fillWait(st: TierState): Gen<'done' | 'stopped'> {
  yield LOCK;
  while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;
  const value = st.stop ? 'stopped' : 'done';
  yield UNLOCK;
  return value;
}
