/**
 * note and note_block (PROTOCOL.md): the decode path's heat count and promotion.
 *
 * note never blocks: heat++, remember the RAM weights, try a plain enqueue.
 * note_block (warmstart) waits on cv_take while the ring is full and not stopping.
 * In streaming mode the engine's RAM slot is recycled right after the call, so the tier
 * copies during the call and keeps no pointer: promotion happens here and now (room on
 * the home device, or a budget-neutral swap against the coldest resident).
 * Both return whether the expert was enqueued. Both hold a gate slot (tier.ts): a note
 * refused at the door (the tier is not LIVE) enqueues nothing.
 */
import type { Gen, RamRef } from '../ops.js';
import { HEAT_MAX } from './config.js';
import { enqueueLocked } from './enqueue.js';
import { admits } from './lfru.js';
import { LOCK, UNLOCK, WAIT_TAKE } from './sync.js';
import { slotOf, type Slot, type TierState } from './state.js';

export function* note(st: TierState, layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
  yield LOCK;
  const slot = slotOf(st, layer, eid);
  if (slot.heat < HEAT_MAX) slot.heat++;
  let ok: boolean;
  if (st.cfg.streaming) {
    ok = yield* promoteStreamingLocked(st, slot, ram);
  } else {
    slot.ram = ram;
    ok = yield* enqueueLocked(st, layer, eid, ram, null, false);
  }
  yield UNLOCK;
  return ok;
}

export function* noteBlock(st: TierState, layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
  yield LOCK;
  const slot = slotOf(st, layer, eid);
  if (slot.heat < HEAT_MAX) slot.heat++;
  slot.ram = ram;
  while (st.qn === st.cfg.ringCapacity && !st.stop) yield WAIT_TAKE;
  const ok = yield* enqueueLocked(st, layer, eid, ram, null, false);
  yield UNLOCK;
  return ok;
}

/** Streaming promotion (mx held): copy now or never; the pointer dies with the call. */
function* promoteStreamingLocked(st: TierState, slot: Slot, ram: RamRef | null): Gen<boolean> {
  slot.ram = null;
  if (ram === null || slot.resident || slot.queued || slot.tensors !== null) return false;
  const dev = slot.home;
  if ((st.used[dev] ?? 0) + st.expBytes <= (st.budget[dev] ?? 0)) {
    return yield* enqueueLocked(st, slot.layer, slot.eid, ram, null, false);
  }
  if (!st.cfg.swaps) return false;
  let cold: Slot | null = null;
  for (const row of st.slots) {
    for (const s of row) {
      if (s.home === dev && s.resident && !s.queued && (cold === null || s.heat < cold.heat)) cold = s;
    }
  }
  if (cold === null || !admits(slot.heat, cold.heat)) return false;
  cold.resident = false;
  const ok = yield* enqueueLocked(st, slot.layer, slot.eid, ram, { layer: cold.layer, eid: cold.eid }, false);
  if (!ok) cold.resident = true;
  else
    yield {
      k: 'mark',
      what: 'swap-enqueued',
      detail: `L${slot.layer}E${slot.eid}<-L${cold.layer}E${cold.eid} (streaming)`,
    };
  return ok;
}
