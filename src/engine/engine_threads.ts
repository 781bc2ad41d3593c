/**
 * The engine's other callers of the tier, beside the decode thread (driver.ts): each a
 * thread of its own, so the tier meets callers it does not control, as an inference
 * server's do.
 *  - the stats thread (a stats or serving thread): rounds of stats, is_resident and note,
 *    while the decode thread decodes and while the tier is torn down; once the tier is not
 *    LIVE every call is refused at the gate's door and does nothing, and the first stats
 *    refused ends the thread;
 *  - the init racer: an init from a thread of its own while the engine shuts down (it
 *    loses during the teardown, or starts a new generation once the tier is DEAD);
 *  - a second shutdown, concurrent with the engine's (one tears down; the other must not
 *    return before the teardown is complete);
 *  - the trunk racer: trunk_place from a thread of its own while the engine starts the
 *    tier (refused unless the tier is DEAD with no placement done, under way or queued).
 * Prefer-resident routing's choice (chooseRoute) lives here too: a pure function of the
 * candidates and their residency.
 */
import { perform, type Gen } from '../ops.js';
import type { Tier } from '../tier/tier.js';

export function* statsThread(tier: Tier, rounds: number, streaming: boolean): Gen<void> {
  const { layers, experts } = tier.st.cfg;
  for (let i = 0; i < rounds; i++) {
    // refused at the gate: the tier is being torn down (or never started); it stops here
    if ((yield* tier.stats()) === null) return;
    const layer = i % layers;
    const eid = (i * 7 + 3) % experts;
    yield* tier.isResident(layer, eid);
    // a serving thread's note: heat and a promotion, from outside the decode loop
    if (!streaming && i % 2 === 1) {
      const ram = yield* perform({ k: 'ramOf', layer, eid });
      yield* tier.note(layer, eid, ram);
    }
  }
}

export function* initRacer(tier: Tier): Gen<void> {
  yield* tier.init();
}

export function* secondShutdown(tier: Tier): Gen<void> {
  yield* tier.shutdown();
}

export function* trunkRacer(tier: Tier): Gen<void> {
  yield* tier.trunkPlace();
}

/**
 * Prefer-resident routing: the first `keep` candidates stay; the remaining slots of the
 * route go to candidates past them that are resident in VRAM, in candidate order, then
 * to the others in order. (The RAM LRU's preference is the engine's in streaming mode;
 * outside it every expert is in RAM.)
 */
export function chooseRoute(cands: readonly number[], resident: readonly boolean[], k: number, keep: number): number[] {
  const out = cands.slice(0, Math.min(keep, k));
  for (let i = out.length; i < cands.length && out.length < k; i++) {
    const e = cands[i];
    if (e !== undefined && resident[i] === true) out.push(e);
  }
  for (let i = Math.min(keep, k); i < cands.length && out.length < k; i++) {
    const e = cands[i];
    if (e !== undefined && !out.includes(e)) out.push(e);
  }
  return out;
}
