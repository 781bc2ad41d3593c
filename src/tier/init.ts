/**
 * init (PROTOCOL.md): check the configuration, set budgets, load the heat file, place
 * the dense trunk, start the uploader.
 *
 * An impossible configuration is a result (a reason string), not an exception: the
 * engine reports it and runs on the CPU.
 */
import { perform, type Gen } from '../ops.js';
import { MAX_GROUP_ROWS } from './config.js';
import { allocFootprint } from './sizes.js';
import type { TierState } from './state.js';
import { uploaderThread } from './uploader.js';

export type InitResult = { ok: true } | { ok: false; reason: string };

export function configProblem(st: TierState): string | null {
  const c = st.cfg;
  if (!Number.isInteger(c.devices) || c.devices < 1) return `devices must be at least 1 (got ${c.devices})`;
  if (c.topk < 1 || c.topk > MAX_GROUP_ROWS) return `topk ${c.topk} is outside 1..${MAX_GROUP_ROWS} rows per group`;
  if (c.topk > c.experts) return `topk ${c.topk} exceeds the ${c.experts} experts`;
  if (c.layers < 1 || c.experts < 1) return `need at least one layer and one expert`;
  if (c.ringCapacity < 1) return `ring capacity must be at least 1 (got ${c.ringCapacity})`;
  if (c.budgetBytes.length !== c.devices) return `${c.budgetBytes.length} budgets for ${c.devices} devices`;
  if (c.swapPeriod < 1 || c.decayPeriod < 1) return `tick periods must be at least 1`;
  if (c.streaming && c.heatFile) return `streaming mode has no heat-file warmstart`;
  return null;
}

export function* init(st: TierState): Gen<InitResult> {
  yield { k: 'call', fn: 'init' };
  const problem = configProblem(st);
  if (problem !== null) {
    yield { k: 'ret', fn: 'init', value: problem };
    return { ok: false, reason: problem };
  }
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const want = st.cfg.budgetBytes[dev] ?? 0;
    if (want === 'auto') {
      const info = yield* perform({ k: 'memInfo', dev });
      st.budget[dev] = info === null ? 0 : Math.max(0, info.free - st.cfg.reserveBytes);
    } else {
      st.budget[dev] = Math.max(0, want);
    }
  }
  if (st.cfg.heatFile) {
    const heat = yield* perform({ k: 'readHeat' });
    if (heat !== null) {
      // halved on load, so last run's heat informs but does not dominate
      for (const row of st.slots) for (const slot of row) slot.heat = (heat[slot.layer]?.[slot.eid] ?? 0) >>> 1;
    }
  }
  if (st.cfg.denseBytes > 0) {
    // dense trunk matrices are read every token: placed before the experts
    const charge = allocFootprint(st.cfg.denseBytes);
    for (let dev = 0; dev < st.cfg.devices; dev++) {
      if ((st.used[dev] ?? 0) + charge > (st.budget[dev] ?? 0)) continue;
      const tensor = yield* perform({ k: 'uploadDense', dev, bytes: st.cfg.denseBytes });
      if (tensor === null) continue;
      st.dense[dev] = tensor;
      st.used[dev] = (st.used[dev] ?? 0) + charge;
    }
  }
  st.uploaderTid = yield* perform({ k: 'spawn', name: 'uploader', body: () => uploaderThread(st) });
  yield { k: 'ret', fn: 'init', value: 'ok' };
  return { ok: true };
}
