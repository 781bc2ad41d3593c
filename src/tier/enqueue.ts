/**
 * enqueue (mx held): put one expert on the upload ring (PROTOCOL.md, "enqueue").
 *
 * Refuses, in this order: after `stop`; when the expert is resident or queued (or still
 * holds the tensors of an eviction not yet carried out); when there are no RAM weights;
 * when the ring is full (counted as a skip); when a plain upload that no plan reserved
 * does not fit its home budget; when the host staging copy cannot be made. Otherwise
 * charges the budget (plain uploads that no plan reserved), makes the staging copy now
 * (the RAM bytes may not live past the caller's call), pushes, counts the entry in
 * flight and wakes the uploader.
 *
 * Invariant kept: used[d] = exp_bytes x (resident + queued + planned on d) + the trunk
 * matrices resident on d.
 */
import { perform, type ExpertKey, type Gen, type RamRef } from '../ops.js';
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
  // A victim whose eviction is still in the ring is neither resident nor queued, but it
  // still holds its tensors: it must be refused too. Otherwise, if that swap is then
  // abandoned at shutdown, the victim becomes resident again while also queued, charged
  // twice (found by the properties: properties/replays/victim-reenqueued-then-abandoned.json).
  if (slot.resident || slot.queued || slot.tensors !== null) return false;
  if (ram === null) return false;
  if (st.qn === st.cfg.ringCapacity) {
    st.counters.queueFullSkips++;
    return false;
  }
  const dev = slot.home;
  const charge = victim === null && !reserved;
  if (charge && (st.used[dev] ?? 0) + st.expBytes > (st.budget[dev] ?? 0)) return false;
  const staging = yield* perform({ k: 'stage', ram, layer, eid });
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
