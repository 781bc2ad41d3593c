/**
 * enqueue (mx held): put one expert on the upload ring (PROTOCOL.md, "enqueue").
 *
 * Refuses after `stop`, when the expert is resident or queued, when there are no RAM
 * weights, when the ring is full (counted as
 * a skip), or when a plain upload does not fit its home budget. Otherwise charges the
 * budget (plain uploads that no plan reserved), makes the staging copy now (the RAM bytes
 * may not live past the caller's call), pushes, counts the entry in flight and wakes the
 * uploader.
 *
 * Invariant kept: used[d] = exp_bytes x (resident + queued + planned on d) + dense[d].
 */
import type { ExpertKey, Gen, RamRef, StagingCopy } from '../ops.js';
import { SIGNAL_CV } from './sync.js';
import { slotOf, type TierState } from './state.js';

export function* enqueueLocked(
  st: TierState,
  layer: number,
  eid: number,
  ram: RamRef | null,
  victim: ExpertKey | null,
  reserved: boolean,
): Gen<boolean> {
  const slot = slotOf(st, layer, eid);
  if (st.stop) return false;
  // A victim whose eviction is still in the ring holds its old tensors; enqueueing it
  // again is safe because the one uploader pops in FIFO order, so the swap takes the old
  // tensors before this entry installs new ones (checked by the properties with and
  // without this refusal, so the protocol's rule is kept as it is).
  if (slot.resident || slot.queued) return false;
  if (ram === null) return false;
  if (st.qn === st.cfg.ringCapacity) {
    st.counters.queueFullSkips++;
    return false;
  }
  const dev = slot.home;
  const charge = victim === null && !reserved;
  if (charge && (st.used[dev] ?? 0) + st.expBytes > (st.budget[dev] ?? 0)) return false;
  const staging = (yield { k: 'stage', ram, layer, eid }) as StagingCopy | null;
  if (staging === null) return false; // host staging allocation failed: nothing charged
  if (charge) st.used[dev] = (st.used[dev] ?? 0) + st.expBytes;
  // a planned expert's reservation now covers the queued entry
  if (reserved) slot.planned = false;
  slot.queued = true;
  st.ring[st.qt] = { layer, eid, staging, victim };
  st.qt = (st.qt + 1) % st.cfg.ringCapacity;
  st.qn++;
  st.inflight++;
  yield SIGNAL_CV;
  return true;
}
