/**
 * enqueue, admission and the streaming promotion (PROTOCOL.md, "enqueue", "lfru tick",
 * "Streaming mode"), mx held.
 */
import type { SpecIo } from './io.js';
import { home, slot, type SpecFamily, type SpecKey, type SpecSlot, type SpecState } from './state.js';

/** promote iff hot > cold + floor(cold / 4) + 4, in 64 bits (heats are u32: exact in a double) */
export function admits(hot: number, cold: number): boolean {
  return hot > cold + Math.floor(cold / 4) + 4;
}

export const HEAT_MAX = 0xffffffff;

export function heatUp(sl: SpecSlot): void {
  if (sl.heat < HEAT_MAX) sl.heat++;
}

/**
 * Refuses after stop; when resident, queued, or still holding the tensors of an
 * eviction not carried out; without RAM weights; on a full ring (a skip); when a plain
 * upload no plan reserved does not fit its home budget; when the staging copy fails.
 */
export function enqueue(
  s: SpecState,
  key: SpecKey,
  hasRam: boolean,
  victim: SpecKey | null,
  reserved: boolean,
  io: SpecIo,
  family: SpecFamily,
): boolean {
  const sl = slot(s, key);
  if (s.stop || sl.resident || sl.queued || sl.tensors || !hasRam) return false;
  if (s.ring.length === s.cfg.ringCapacity) {
    s.counters.queueFullSkips++;
    return false;
  }
  const dev = home(s, key.eid);
  const charge = victim === null && !reserved;
  if (charge && (s.used[dev] ?? 0) + s.exp > (s.budget[dev] ?? 0)) return false;
  if (!io.op({ k: 'stage', key }, family)) return false;
  if (charge) s.used[dev] = (s.used[dev] ?? 0) + s.exp;
  if (reserved) sl.planned = false;
  sl.queued = true;
  s.ring.push({ layer: key.layer, eid: key.eid, victim });
  s.inflight++;
  io.op({ k: 'signal', cv: 'cv' }, 'SPEC-WAKEUP');
  return true;
}

/** The coldest resident not queued on a device, first in layer-major order among equals. */
export function coldest(s: SpecState, dev: number): SpecKey | null {
  let best: SpecKey | null = null;
  let heat = Infinity;
  s.slots.forEach((row, layer) =>
    row.forEach((x, eid) => {
      if (home(s, eid) === dev && x.resident && !x.queued && x.heat < heat) {
        best = { layer, eid };
        heat = x.heat;
      }
    }),
  );
  return best;
}

/** Streaming: copy during the call or never; room on the home device, or a budget-neutral swap. */
export function promoteStreaming(s: SpecState, key: SpecKey, hasRam: boolean, io: SpecIo): boolean {
  const sl = slot(s, key);
  sl.ram = false;
  if (!hasRam || sl.resident || sl.queued || sl.tensors) return false;
  const dev = home(s, key.eid);
  if ((s.used[dev] ?? 0) + s.exp <= (s.budget[dev] ?? 0)) return enqueue(s, key, true, null, false, io, 'SPEC-ENQUEUE');
  if (!s.cfg.swaps) return false;
  const cold = coldest(s, dev);
  if (cold === null || !admits(sl.heat, slot(s, cold).heat)) return false;
  slot(s, cold).resident = false;
  const ok = enqueue(s, key, true, cold, false, io, 'SPEC-ADMISSION');
  if (!ok) slot(s, cold).resident = true;
  return ok;
}
