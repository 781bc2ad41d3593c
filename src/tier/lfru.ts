/**
 * The LFRU tick (mx held; PROTOCOL.md, "lfru tick"): heat decay and the swap admission rule.
 *
 * Runs inside `issue` on layer 0 of each token. A swap clears the victim's `resident` at
 * once (its experts go to the CPU from now on) and hands the victim to the uploader,
 * which frees it only once no group is open. Backends that cannot reclaim memory never
 * swap (cfg.swaps is false): they fill once. Every tick also starts a few re-plan pairs
 * still pending (replan.ts), before the round.
 */
import type { Gen } from '../ops.js';
import { enqueueLocked } from './enqueue.js';
import { startPendingLocked } from './replan.js';
import type { Slot, TierState } from './state.js';

/** The admission rule, in 64-bit arithmetic (heats are u32, so doubles are exact here). */
export function admits(hot: number, cold: number): boolean {
  return hot > cold + Math.floor(cold / 4) + 4;
}

export function* lfruTickLocked(st: TierState): Gen<void> {
  st.tick++;
  if (st.tick % st.cfg.decayPeriod === 0) {
    for (const row of st.slots) for (const slot of row) slot.heat = slot.heat >>> 1;
  }
  yield* startPendingLocked(st, st.cfg.replanPerTick);
  if (!st.cfg.swaps || st.tick % st.cfg.swapPeriod !== 0) return;
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    let cold: Slot | null = null;
    let hot: Slot | null = null;
    for (const row of st.slots) {
      for (const slot of row) {
        if (slot.home !== dev || slot.queued) continue;
        if (slot.resident) {
          if (cold === null || slot.heat < cold.heat) cold = slot;
        } else if (!slot.planned && slot.ram !== null && slot.tensors === null) {
          if (hot === null || slot.heat > hot.heat) hot = slot;
        }
      }
    }
    if (cold === null || hot === null || !admits(hot.heat, cold.heat)) continue;
    cold.resident = false;
    const victim = { layer: cold.layer, eid: cold.eid };
    const ok = yield* enqueueLocked(st, hot.layer, hot.eid, hot.ram, victim, false);
    if (!ok) cold.resident = true;
    else yield { k: 'mark', what: 'swap-enqueued', detail: `L${hot.layer}E${hot.eid}<-L${cold.layer}E${cold.eid}` };
  }
}
