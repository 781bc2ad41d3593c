/**
 * The LFRU tick (PROTOCOL.md, "lfru tick"), run inside issue on layer 0 of each token:
 * tick++; every decay period all heats halve; every swap period, per device, the coldest
 * resident (not queued) against the hottest expert that could be uploaded (not resident,
 * not queued, not planned, with RAM weights and no tensors held): if the admission rule
 * agrees, the victim stops being resident at once and a swap is enqueued; if the
 * enqueue is refused, the victim is resident again. Fill-once backends never swap. Each
 * tick first starts a few pending re-plan pairs (replan.ts).
 *
 * Returns what the tick did, so a divergence can be named by its family.
 */
import { admits, coldest, enqueue } from './enqueue.js';
import { startPending } from './replan.js';
import type { SpecIo } from './io.js';
import { home, slot, type SpecKey, type SpecState } from './state.js';

export interface TickOutcome {
  readonly decayed: boolean;
  readonly round: boolean;
}

export function lfruTick(s: SpecState, io: SpecIo): TickOutcome {
  s.tick++;
  const decayed = s.tick % s.cfg.decayPeriod === 0;
  if (decayed) for (const row of s.slots) for (const x of row) x.heat = Math.floor(x.heat / 2);
  startPending(s, io, s.cfg.replanPerTick);
  const round = s.cfg.swaps && s.tick % s.cfg.swapPeriod === 0;
  if (!round) return { decayed, round };
  for (let dev = 0; dev < s.cfg.devices; dev++) {
    const cold = coldest(s, dev);
    const hot = hottest(s, dev);
    if (cold === null || hot === null || !admits(slot(s, hot).heat, slot(s, cold).heat)) continue;
    slot(s, cold).resident = false;
    if (!enqueue(s, hot, true, cold, false, io, 'SPEC-ADMISSION')) slot(s, cold).resident = true;
  }
  return { decayed, round };
}

/** The hottest expert on a device that an upload could bring in, first among equals. */
function hottest(s: SpecState, dev: number): SpecKey | null {
  let best: SpecKey | null = null;
  let heat = -1;
  s.slots.forEach((row, layer) =>
    row.forEach((x, eid) => {
      if (home(s, eid) !== dev || x.resident || x.queued || x.planned || !x.ram || x.tensors) return;
      if (x.heat > heat) {
        best = { layer, eid };
        heat = x.heat;
      }
    }),
  );
  return best;
}
