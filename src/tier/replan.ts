/**
 * Re-plan (PROTOCOL.md, "Re-plan"): after a prefill layer's routing (or once with the
 * whole table, layer < 0), residents the prompt never routed are swapped, budget neutral
 * and victim first, for the prompt's most-routed non-residents of the same layer (or
 * of the whole table), each pair on one home device, while the newcomer's count strictly
 * exceeds the victim's. As many swaps start as the ring takes; the rest stay pending,
 * oldest first, and start on later calls and a few per decode tick (the LFRU tick).
 * Nothing blocks. Returns the pairs planned by this call.
 *
 * A pair is checked again when it starts: its victim must still be resident and settled,
 * its newcomer still away with RAM weights and nothing planned or queued; a pair that no
 * longer holds is dropped. Backends that never reclaim memory never swap: re-plan plans
 * nothing there. mx held throughout.
 */
import type { Gen, ReplanPair } from '../ops.js';
import { enqueueLocked } from './enqueue.js';
import { LOCK, UNLOCK } from './sync.js';
import { slotOf, type Slot, type TierState } from './state.js';

export function* replan(
  st: TierState,
  layer: number,
  counts: readonly (readonly number[])[],
  maxSwaps: number,
): Gen<ReplanPair[]> {
  yield LOCK;
  const planned = st.cfg.swaps ? planLocked(st, layer, counts, maxSwaps) : [];
  for (const p of planned) st.pending.push(p);
  yield* startPendingLocked(st, st.pending.length);
  yield UNLOCK;
  return planned;
}

/** The count of (l, e) in `counts` (one row for layer >= 0, else one per layer). */
function countOf(counts: readonly (readonly number[])[], layer: number, l: number, e: number): number {
  return counts[layer < 0 ? l : 0]?.[e] ?? 0;
}

function isPending(st: TierState, s: Slot): boolean {
  return st.pending.some(
    (p) => (p.layer === s.layer && p.victim === s.eid) || (p.newcomerLayer === s.layer && p.newcomer === s.eid),
  );
}

function planLocked(
  st: TierState,
  layer: number,
  counts: readonly (readonly number[])[],
  maxSwaps: number,
): ReplanPair[] {
  const planned: ReplanPair[] = [];
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const victims: Slot[] = [];
    const comers: Slot[] = [];
    for (const row of st.slots) {
      for (const s of row) {
        if (s.home !== dev || (layer >= 0 && s.layer !== layer) || isPending(st, s)) continue;
        const n = countOf(counts, layer, s.layer, s.eid);
        if (s.resident && !s.queued && n === 0) victims.push(s);
        else if (!s.resident && !s.queued && !s.planned && s.ram !== null && s.tensors === null) comers.push(s);
      }
    }
    // most-routed newcomers first, coldest victims first; ties in (layer, expert) order,
    // the order they were collected in, which the sort keeps (it is stable)
    const count = (s: Slot): number => countOf(counts, layer, s.layer, s.eid);
    comers.sort((a, b) => count(b) - count(a));
    victims.sort((a, b) => a.heat - b.heat);
    // paired in order until either list ends, max_swaps is reached or the counts forbid it
    for (let i = 0; planned.length < maxSwaps; i++) {
      const v = victims[i];
      const c = comers[i];
      if (v === undefined || c === undefined || count(c) <= count(v)) break;
      planned.push({ layer: v.layer, victim: v.eid, newcomerLayer: c.layer, newcomer: c.eid });
    }
  }
  return planned;
}

/**
 * Starts pending pairs, oldest first, until `limit` have started or the ring is full
 * (the rest stay pending); a pair that no longer holds is dropped (mx held).
 */
export function* startPendingLocked(st: TierState, limit: number): Gen<void> {
  let started = 0;
  while (started < limit && st.qn < st.cfg.ringCapacity && !st.stop) {
    const p = st.pending.shift();
    if (p === undefined) break; // nothing left pending
    const victim = slotOf(st, p.layer, p.victim);
    const comer = slotOf(st, p.newcomerLayer, p.newcomer);
    // The victim must still be resident (so settled: a resident is never queued) and the
    // newcomer not planned since. enqueueLocked refuses the rest of what no longer holds
    // (a newcomer resident, queued, still holding tensors or without RAM weights) before
    // it changes anything, and the victim is then made resident again below.
    if (!victim.resident || comer.planned) continue;
    victim.resident = false;
    const ok = yield* enqueueLocked(st, comer.layer, comer.eid, comer.ram, { layer: p.layer, eid: p.victim }, false);
    if (!ok) {
      victim.resident = true;
      continue;
    }
    started++;
    yield { k: 'mark', what: 'replan-swap', detail: `L${comer.layer}E${comer.eid}<-L${p.layer}E${p.victim}` };
  }
}
