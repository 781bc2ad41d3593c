/**
 * The uploader thread (PROTOCOL.md, "uploader thread").
 *
 * Waits for work while the ring is empty and not stopping; leaves only when stopping and
 * the ring is empty. Each entry leaves `inflight` through exactly one decrement: the
 * abandon branch, or the common tail after the three uploads (success or failure).
 * The ring slot is freed at dequeue, before any copy: that is why fill_wait must wait on
 * `inflight`, not on `qn`.
 */
import { EXPERT_PARTS, perform, type Gen, type TensorHandle } from '../ops.js';
import { recordEvictionLocked } from './evicted.js';
import { BROADCAST_TAKE, LOCK, UNLOCK, WAIT_CV, WAIT_TAKE } from './sync.js';
import { slotOf, type RingEntry, type TierState } from './state.js';

/** The ring's oldest entry (qn > 0): the ring invariant says it is there. */
function ringHead(st: TierState): RingEntry {
  const entry = st.ring[st.qh];
  if (entry === null || entry === undefined) throw new Error(`ring slot ${st.qh} is empty with qn=${st.qn}`);
  return entry;
}

export function* uploaderThread(st: TierState): Gen<void> {
  const cap = st.cfg.ringCapacity;
  yield LOCK;
  for (;;) {
    while (st.qn === 0 && !st.stop) yield WAIT_CV;
    if (st.qn === 0) break; // stopping and nothing left
    const entry = ringHead(st);
    st.ring[st.qh] = null;
    st.qh = (st.qh + 1) % cap;
    st.qn--;
    yield BROADCAST_TAKE; // ring space freed
    const slot = slotOf(st, entry.layer, entry.eid);
    let victimTensors: TensorHandle[] | null = null;
    if (entry.victim !== null) {
      const victim = slotOf(st, entry.victim.layer, entry.victim.eid);
      // an open group may be reading the victim's tensors
      while (st.issueOpen && !st.stop) yield WAIT_TAKE;
      if (st.stop && st.issueOpen) {
        // shutdown with a group still open: keep the victim, drop the incoming expert
        victim.resident = true;
        slot.queued = false;
        st.inflight--;
        st.counters.swapsAbandoned++;
        yield { k: 'mark', what: 'swap-abandoned', detail: `L${entry.layer}E${entry.eid}` };
        yield BROADCAST_TAKE;
        yield UNLOCK;
        yield { k: 'unstage', staging: entry.staging };
        yield LOCK;
        continue;
      }
      victimTensors = victim.tensors;
      victim.tensors = null;
    }
    yield UNLOCK;

    if (victimTensors !== null) {
      for (const tensor of victimTensors) yield { k: 'free', dev: slot.home, tensor };
    }
    const handles: TensorHandle[] = [];
    for (const part of EXPERT_PARTS) {
      const h = yield* perform({
        k: 'upload',
        dev: slot.home,
        staging: entry.staging,
        part,
        layer: entry.layer,
        eid: entry.eid,
      });
      if (h === null) break;
      handles.push(h);
    }
    const ok = handles.length === EXPERT_PARTS.length;
    if (!ok) for (const tensor of handles) yield { k: 'free', dev: slot.home, tensor };
    yield { k: 'unstage', staging: entry.staging };

    yield LOCK;
    // the victim's tensors are gone whether or not the upload then succeeded
    if (entry.victim !== null) yield* recordEvictionLocked(st, entry.victim);
    if (ok) {
      slot.tensors = handles;
      slot.resident = true;
      st.counters.uploads++;
      if (entry.victim !== null) st.counters.swaps++;
    } else {
      // device genuinely full: give the charge back and stop trying on that device
      st.used[slot.home] = (st.used[slot.home] ?? 0) - st.expBytes;
      st.budget[slot.home] = st.used[slot.home] ?? 0;
      st.counters.uploadFailures++;
      yield { k: 'mark', what: 'upload-failed', detail: `L${entry.layer}E${entry.eid}` };
    }
    slot.queued = false;
    st.inflight--;
    yield BROADCAST_TAKE;
  }
  yield UNLOCK;
}
