/**
 * Re-plan and the eviction ring (PROTOCOL.md, "Re-plan", "Eviction ring"), mx held:
 *  - replan(layer, counts, maxSwaps): on a backend that reclaims, per device, the
 *    residents the prompt never routed (settled, not already in a pending pair; coldest
 *    first) against the non-residents that could come in (not queued or planned, RAM
 *    weights, no tensors held, not in a pending pair; most routed first), paired in
 *    order while the newcomer's count is strictly greater than the victim's, at most
 *    maxSwaps pairs in all; the pairs join the pending list, which then starts oldest
 *    first while the ring has room. Returns the pairs planned.
 *  - starting a pair: checked again (the victim resident and settled, the newcomer still
 *    able to come in: not planned here, the rest by enqueue's refusals), else dropped; the
 *    victim stops being resident and a swap is enqueued; refused, the victim is resident
 *    again and the pair dropped.
 *  - the eviction ring: each victim whose tensors the uploader freed, oldest first, up to
 *    its capacity (the rest dropped and counted); evicted_take drains up to max of it.
 * Written from the protocol, independently of the tier.
 */
import { enqueue } from './enqueue.js';
import type { SpecIo, Step } from './io.js';
import { home, slot, type SpecKey, type SpecPair, type SpecSlot, type SpecState } from './state.js';
import { UNLOCK, type SpecCall } from './call.js';

const inPair = (s: SpecState, l: number, e: number): boolean =>
  s.pending.some((p) => (p.layer === l && p.victim === e) || (p.newcomerLayer === l && p.newcomer === e));

const canComeIn = (x: SpecSlot): boolean => !x.resident && !x.queued && !x.planned && x.ram && !x.tensors;

function plan(s: SpecState, layer: number, counts: readonly (readonly number[])[], max: number): SpecPair[] {
  const count = (l: number, e: number): number => counts[layer < 0 ? l : 0]?.[e] ?? 0;
  const out: SpecPair[] = [];
  for (let dev = 0; dev < s.cfg.devices; dev++) {
    const victims: (SpecKey & { heat: number })[] = [];
    const comers: SpecKey[] = [];
    s.slots.forEach((row, l) =>
      row.forEach((x, e) => {
        if (home(s, e) !== dev || (layer >= 0 && l !== layer) || inPair(s, l, e)) return;
        if (x.resident && !x.queued && count(l, e) === 0) victims.push({ layer: l, eid: e, heat: x.heat });
        else if (canComeIn(x)) comers.push({ layer: l, eid: e });
      }),
    );
    // stable sorts: ties stay in the (layer, expert) order of collection
    victims.sort((a, b) => a.heat - b.heat);
    comers.sort((a, b) => count(b.layer, b.eid) - count(a.layer, a.eid));
    // in order, until a list ends, max pairs are planned or the counts forbid it
    for (let i = 0; out.length < max; i++) {
      const v = victims[i];
      const c = comers[i];
      if (v === undefined || c === undefined || !(count(c.layer, c.eid) > count(v.layer, v.eid))) break;
      out.push({ layer: v.layer, victim: v.eid, newcomerLayer: c.layer, newcomer: c.eid });
    }
  }
  return out;
}

/** Starts pending pairs oldest first, at most `limit`, while the ring has room. */
export function startPending(s: SpecState, io: SpecIo, limit: number): void {
  let started = 0;
  while (started < limit && s.ring.length < s.cfg.ringCapacity && !s.stop) {
    const p = s.pending.shift();
    if (p === undefined) break;
    const victim = slot(s, { layer: p.layer, eid: p.victim });
    const comer = { layer: p.newcomerLayer, eid: p.newcomer };
    const x = slot(s, comer);
    // a victim no longer resident, a newcomer planned since: dropped; a newcomer that
    // cannot come in otherwise (resident, queued, holding tensors, no RAM): enqueue refuses
    if (!victim.resident || x.planned) continue;
    victim.resident = false;
    if (!enqueue(s, comer, x.ram, { layer: p.layer, eid: p.victim }, false, io, 'SPEC-REPLAN')) {
      victim.resident = true;
      continue;
    }
    started++;
  }
}

export function recordEviction(s: SpecState, victim: SpecKey): void {
  if (s.evicted.length < s.cfg.evictCapacity) s.evicted.push({ layer: victim.layer, eid: victim.eid });
  else s.evictedDropped++;
}

export class ReplanCall implements SpecCall {
  readonly family = 'SPEC-REPLAN' as const;
  private pairs: SpecPair[] | null = null;
  constructor(
    private readonly layer: number,
    private readonly counts: readonly (readonly number[])[],
    private readonly maxSwaps: number,
  ) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.pairs !== null) return { returned: { fn: 'pairs', pairs: this.pairs } };
    this.pairs = s.cfg.swaps ? plan(s, this.layer, this.counts, this.maxSwaps) : [];
    s.pending.push(...this.pairs);
    startPending(s, io, s.pending.length);
    return UNLOCK;
  }
}

export class EvictedTakeCall implements SpecCall {
  readonly family = 'SPEC-EVICTED' as const;
  private keys: SpecKey[] | null = null;
  constructor(private readonly max: number) {}

  step(s: SpecState): Step {
    if (this.keys !== null) return { returned: { fn: 'keys', keys: this.keys } };
    this.keys = s.evicted.splice(0, Math.max(0, this.max));
    return UNLOCK;
  }
}
