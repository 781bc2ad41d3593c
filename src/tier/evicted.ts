/**
 * The eviction ring (PROTOCOL.md, "Eviction ring"): every expert the tier evicted (an
 * LFRU, streaming or re-plan swap whose victim's tensors the uploader freed), oldest
 * first, each reported once by evicted_take. Bounded by cfg.evictCapacity: an eviction
 * that finds it full is dropped and counted (the engine then rebuilds CPU copies lazily).
 * An abandoned swap evicts nothing. mx held throughout.
 */
import type { ExpertKey, Gen } from '../ops.js';
import type { TierState } from './state.js';
import { LOCK, UNLOCK } from './sync.js';

/** The uploader freed `victim`'s tensors (mx held). */
export function* recordEvictionLocked(st: TierState, victim: ExpertKey): Gen<void> {
  if (st.evicted.length < st.cfg.evictCapacity) {
    st.evicted.push({ layer: victim.layer, eid: victim.eid });
    return;
  }
  st.evictedDropped++;
  yield { k: 'mark', what: 'evicted-dropped', detail: `L${victim.layer}E${victim.eid}` };
}

/** evicted_take: up to `max` evictions not reported yet, oldest first; each reported once. */
export function* evictedTake(st: TierState, max: number): Gen<ExpertKey[]> {
  yield LOCK;
  const out = st.evicted.splice(0, Math.max(0, max));
  yield UNLOCK;
  return out;
}
