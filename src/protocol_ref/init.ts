/**
 * init (PROTOCOL.md, "init", and its contract details): refuses exactly the invalid
 * configurations; then the stages, each of which may fail and is then undone with every
 * stage before it, so a failed init leaves nothing allocated: the host arrays (slot
 * table, then ring), the sync objects, the budgets (a figure, or free memory minus the
 * reserve), the heat file (halved on load), the dense trunk placed before the experts
 * by value per byte (config.ts, trunkPlacement), the uploader thread. A second init while active changes nothing and says so.
 */
import { refusal, roomiest, trunkBytes, trunkRanking } from './config.js';
import type { SpecIo, Step } from './io.js';
import { readHeatFile } from './heat_file.js';
import { zeroCounters, type SpecState } from './state.js';
import type { SpecCall } from './call.js';

export class InitCall implements SpecCall {
  readonly family = 'SPEC-INIT' as const;
  step(s: SpecState, io: SpecIo): Step {
    return { returned: { fn: 'init', state: init(s, io) } };
  }
}

function init(s: SpecState, io: SpecIo): 'active' | 'off' | 'already' {
  const c = s.cfg;
  if (s.active) return 'already';
  if (refusal(c) !== null) return 'off';
  if (!io.op({ k: 'hostAlloc', what: 'slots' }, 'SPEC-INIT')) return 'off';
  if (!io.op({ k: 'hostAlloc', what: 'ring' }, 'SPEC-INIT')) {
    io.op({ k: 'hostFree', what: 'slots' }, 'SPEC-INIT');
    return 'off';
  }
  if (!io.op({ k: 'syncInit' }, 'SPEC-INIT')) {
    freeArrays(io);
    return 'off';
  }
  freshTables(s);
  for (let dev = 0; dev < c.devices; dev++) {
    const want = c.budget[dev] ?? 0;
    if (want === 'auto') {
      const free = io.memInfo(dev, 'SPEC-INIT');
      s.budget[dev] = free === null ? 0 : Math.max(0, free - c.reserveBytes);
    } else {
      s.budget[dev] = Math.max(0, want);
    }
  }
  if (c.heatFile) {
    const heat = readHeatFile(io.readHeat('SPEC-HEAT-FILE'), c.layers, c.experts);
    if (heat !== null)
      s.slots.forEach((row, l) => row.forEach((x, e) => (x.heat = Math.floor((heat[l]?.[e] ?? 0) / 2))));
  }
  placeTrunk(s, io);
  if (!io.op({ k: 'spawn', name: 'uploader' }, 'SPEC-INIT')) {
    s.dense.forEach((dev, index) => {
      const offer = c.trunk[index];
      if (dev === null || offer === undefined) return;
      io.op({ k: 'free', dev, key: null, part: 'dense', index }, 'SPEC-INIT');
      s.dense[index] = null;
      s.used[dev] = (s.used[dev] ?? 0) - trunkBytes(offer);
    });
    freeArrays(io);
    s.slots = [];
    return 'off';
  }
  s.active = true;
  return 'active';
}

/** The trunk before the experts, one matrix at a time onto the roomiest device that holds
 * it; one that fits nowhere, or whose upload fails, stays on the CPU (charged nothing). */
function placeTrunk(s: SpecState, io: SpecIo): void {
  for (const index of trunkRanking(s.cfg)) {
    const offer = s.cfg.trunk[index];
    if (offer === undefined) continue;
    const dev = roomiest(s.budget, s.used, trunkBytes(offer));
    if (dev < 0 || !io.op({ k: 'uploadDense', dev, index }, 'SPEC-INIT')) continue;
    s.dense[index] = dev;
    s.used[dev] = (s.used[dev] ?? 0) + trunkBytes(offer);
  }
}

function freeArrays(io: SpecIo): void {
  io.op({ k: 'hostFree', what: 'slots' }, 'SPEC-INIT');
  io.op({ k: 'hostFree', what: 'ring' }, 'SPEC-INIT');
}

/** A new session: every expert cold and away, budgets to set, nothing in flight. */
function freshTables(s: SpecState): void {
  const c = s.cfg;
  s.slots = Array.from({ length: c.layers }, () =>
    Array.from({ length: c.experts }, () => ({
      heat: 0,
      resident: false,
      queued: false,
      planned: false,
      tensors: false,
      ram: false,
    })),
  );
  s.budget = new Array<number>(c.devices).fill(0);
  s.used = new Array<number>(c.devices).fill(0);
  s.ring = [];
  s.groups = Array.from({ length: c.devices }, () => []);
  s.dense = new Array<number | null>(c.trunk.length).fill(null);
  s.inflight = 0;
  s.stop = false;
  s.issueOpen = false;
  s.groupsBusy = false;
  s.groupsDrained = false;
  s.waiters = 0;
  s.denseInflight = 0;
  s.tick = c.startTick;
  s.counters = zeroCounters();
}
