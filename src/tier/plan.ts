/**
 * plan_fill and note_planned: the parallel warmstart (PROTOCOL.md).
 *
 * plan_fill reserves budget for each expert that fits its home device, in heat order
 * (heat file: hottest first, then layer, then expert) or natural order, and marks it
 * planned, until every device is full (all experts cost the same, so the first one that
 * does not fit fills its device). Loader threads then hand each one over with
 * note_planned: null weights, or an enqueue that is refused, give the reservation back
 * and clear `planned` (#1331), so the expert can be reconsidered and no budget leaks.
 * With weights, note_planned waits for ring space like note_block (a full ring would
 * otherwise refuse and waste the reservation).
 */
import type { ExpertKey, Gen, RamRef } from '../ops.js';
import { enqueueLocked } from './enqueue.js';
import { LOCK, UNLOCK, WAIT_TAKE } from './sync.js';
import { slotOf, type Slot, type TierState } from './state.js';

export function* planFill(st: TierState): Gen<ExpertKey[]> {
  yield LOCK;
  const planned = planLocked(st);
  yield UNLOCK;
  return planned;
}

function planLocked(st: TierState): ExpertKey[] {
  const order: Slot[] = [];
  for (const row of st.slots) for (const slot of row) order.push(slot);
  // hottest first; the sort is stable, so equal heat keeps layer-major, then expert order
  if (st.cfg.heatFile) order.sort((a, b) => b.heat - a.heat);
  const planned: ExpertKey[] = [];
  const full = new Array<boolean>(st.cfg.devices).fill(false);
  let devicesFull = 0;
  for (const slot of order) {
    if (st.stop || devicesFull === st.cfg.devices) break;
    const dev = slot.home;
    if (full[dev] === true || slot.resident || slot.queued || slot.planned) continue;
    if ((st.used[dev] ?? 0) + st.expBytes > (st.budget[dev] ?? 0)) {
      full[dev] = true;
      devicesFull++;
      continue;
    }
    st.used[dev] = (st.used[dev] ?? 0) + st.expBytes;
    slot.planned = true;
    planned.push({ layer: slot.layer, eid: slot.eid });
  }
  return planned;
}

export function* notePlanned(st: TierState, layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
  yield LOCK;
  let ok = false;
  const slot = slotOf(st, layer, eid);
  if (slot.planned) {
    if (ram !== null) {
      slot.ram = ram;
      while (st.qn === st.cfg.ringCapacity && !st.stop) yield WAIT_TAKE;
      ok = yield* enqueueLocked(st, layer, eid, ram, null, true);
    }
    if (!ok) {
      slot.planned = false;
      st.used[slot.home] = (st.used[slot.home] ?? 0) - st.expBytes;
    }
  }
  yield UNLOCK;
  return ok;
}
