/**
 * init (PROTOCOL.md, "init", and its contract details): refuses exactly the invalid
 * configurations; then the stages, each of which may fail and is then undone with every
 * stage before it, so a failed init leaves nothing allocated: the host arrays (slot
 * table, then ring), the sync objects, the budgets (a figure, or free memory minus the
 * reserve), the heat file (halved on load), the dense trunk placed before the experts
 * by value per byte (config.ts, trunkPlacement), the uploader thread. init holds the gate's
 * exclusive section from DEAD (gate.ts): while LIVE it changes nothing and says so
 * ('already'); during a teardown or another init it is refused ('busy'). A trunk placed
 * while DEAD is freed first: this generation places its own.
 */
import { refusal, roomiest, trunkBytes, trunkRanking } from './config.js';
import type { SpecIo, Step } from './io.js';
import { readHeatFile } from './heat_file.js';
import { ExclusiveEntry, leaveExclusive } from './gate.js';
import { zeroCounters, type SpecState } from './state.js';
import { GUNLOCK, UNLOCK, WAIT_GCV, type SpecCall } from './call.js';
import { budgets } from './trunk.js';

type InitState = 'active' | 'off' | 'already' | 'busy';

/**
 * init's program: the exclusive entry from DEAD (refused: 'already' when LIVE, else
 * 'busy'); the stages up to the sync objects outside any lock (a failure rolls back and
 * leaves the section DEAD); the tables under mx; the way out of the section, LIVE or,
 * when the uploader could not start, after the rollback, DEAD.
 */
export class InitCall implements SpecCall {
  private pc: 'door' | 'stages' | 'leave' | 'rollback' | 'ret' = 'door';
  /** the door's family while the exclusive entry is under way, init's after */
  private stepFamily: 'SPEC-GATE' | 'SPEC-INIT' = 'SPEC-GATE';

  get family(): 'SPEC-GATE' | 'SPEC-INIT' {
    return this.stepFamily;
  }
  private value: InitState = 'busy';
  private readonly entry = new ExclusiveEntry();
  /** a failed thread start: the trunk taken out of the tables, to free (offer, device) */
  private readonly dense: number[] = [];
  private readonly denseDev: number[] = [];

  step(s: SpecState, io: SpecIo): Step {
    switch (this.pc) {
      case 'door':
        return this.door(s);
      case 'stages':
        return this.stages(s, io);
      case 'leave':
        return this.leave(s, io, 'LIVE');
      case 'rollback':
        for (const index of this.dense) {
          io.op({ k: 'free', dev: this.denseDev[index] ?? -1, key: null, part: 'dense', index }, 'SPEC-INIT');
        }
        freeArrays(io);
        io.op({ k: 'syncDestroy' }, 'SPEC-INIT');
        return this.leave(s, io, 'DEAD');
      case 'ret':
        return { returned: { fn: 'init', state: this.value } };
    }
  }

  private door(s: SpecState): Step {
    this.stepFamily = 'SPEC-GATE';
    const r = this.entry.step(s.gate, 'DEAD');
    if (r === 'wait') return WAIT_GCV;
    if (r === 'refused') {
      this.value = this.entry.found === 'LIVE' ? 'already' : 'busy';
      this.pc = 'ret';
      return GUNLOCK;
    }
    this.pc = 'stages';
    this.stepFamily = 'SPEC-INIT';
    return GUNLOCK;
  }

  private leave(s: SpecState, io: SpecIo, to: 'LIVE' | 'DEAD'): Step {
    this.pc = 'ret';
    return leaveExclusive(s, io, to);
  }

  /** The stages; under mx from the sync objects on. Ends at init's unlock, or (failed
   *  before the tables) at the way out of the section. */
  private stages(s: SpecState, io: SpecIo): Step {
    for (const t of this.entry.taken) {
      io.op({ k: 'free', dev: t.dev, key: null, part: 'dense', index: t.index }, 'SPEC-INIT');
    }
    this.value = 'off';
    const c = s.cfg;
    if (refusal(c) !== null) return this.leave(s, io, 'DEAD');
    if (!io.op({ k: 'hostAlloc', what: 'slots' }, 'SPEC-INIT')) return this.leave(s, io, 'DEAD');
    if (!io.op({ k: 'hostAlloc', what: 'ring' }, 'SPEC-INIT')) {
      io.op({ k: 'hostFree', what: 'slots' }, 'SPEC-INIT');
      return this.leave(s, io, 'DEAD');
    }
    if (!io.op({ k: 'syncInit' }, 'SPEC-INIT')) {
      freeArrays(io);
      return this.leave(s, io, 'DEAD');
    }
    tablesLocked(s, io);
    s.active = true;
    if (!io.op({ k: 'spawn', name: 'uploader' }, 'SPEC-INIT')) {
      s.active = false;
      s.dense.forEach((dev, index) => {
        const offer = c.trunk[index];
        if (dev === null || offer === undefined) return;
        this.dense.push(index);
        this.denseDev[index] = dev;
        s.dense[index] = null;
        s.used[dev] = (s.used[dev] ?? 0) - trunkBytes(offer);
      });
      s.slots = [];
      this.pc = 'rollback';
      return UNLOCK;
    }
    this.value = 'active';
    this.pc = 'leave';
    return UNLOCK;
  }
}

/** Under mx: fresh tables, the budgets, the heat file, the trunk. */
function tablesLocked(s: SpecState, io: SpecIo): void {
  const c = s.cfg;
  freshTables(s);
  s.budget = budgets(c, (dev) => io.memInfo(dev, 'SPEC-INIT'));
  if (c.heatFile) {
    const heat = readHeatFile(io.readHeat('SPEC-HEAT-FILE'), c.layers, c.experts);
    if (heat !== null)
      s.slots.forEach((row, l) => row.forEach((x, e) => (x.heat = Math.floor((heat[l]?.[e] ?? 0) / 2))));
  }
  placeTrunk(s, io);
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
  s.tick = c.startTick;
  s.pending = [];
  s.evicted = [];
  s.evictedDropped = 0;
  s.mark = { hits: 0, misses: 0 };
  s.counters = zeroCounters();
}
