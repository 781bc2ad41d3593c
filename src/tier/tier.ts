/**
 * The tier's public face: one object per engine, every operation a generator that a
 * world (simulated or real) runs. Nothing here knows which world it is in.
 *
 * Every call is framed here by a `call` mark (its arguments) and a `ret` mark (its
 * result), outside the call's own code, so that checkers follow each thread through the
 * tier even when that code is wrong: a call whose body does nothing still shows as a
 * call that returned without doing its work.
 *
 * Every expert entry point enters through the lifecycle gate's expert door and leaves
 * through it (gate.ts): refused at the door, it does nothing and returns its "off" value;
 * admitted, it is counted for its whole body, so teardown's second half waits for it.
 * init and shutdown take the gate's exclusive sections themselves; the trunk's entry
 * points (trunk.ts) use the trunk door.
 */
import type {
  ExpertKey,
  Gen,
  InitResult,
  RamRef,
  ReplanPair,
  RouteInfo,
  TakeResult,
  TierCall,
  TierReturn,
  TierStats,
} from '../ops.js';
import type { TierConfig } from './config.js';
import { evictedTake } from './evicted.js';
import { fillWait } from './fill_wait.js';
import { enter, leave } from './gate.js';
import { issue, take } from './group.js';
import { init } from './init.js';
import { note, noteBlock } from './note.js';
import { notePlanned, planFill } from './plan.js';
import { replan } from './replan.js';
import { shutdown } from './shutdown.js';
import { createState, slotOf, type TierState } from './state.js';
import { denseMatmul, trunkPlace } from './trunk.js';
import { LOCK, UNLOCK } from './sync.js';

/** Runs one tier call between its marks (each API's value type is its TierReturn's). */
function* framed<T>(call: TierCall, body: Gen<T>): Gen<T> {
  yield { k: 'call', call };
  const value = yield* body;
  yield { k: 'ret', ret: { fn: call.fn, value } as TierReturn };
  return value;
}

/**
 * Runs `body` inside the gate (the expert tier's door), or returns `refused` when the door
 * refuses. Callers pass `body` inline: a closure held in a named constant is named again
 * at each call where the sources run through a loader that keeps names (a property
 * definition per call, on the path of every expert a fill plans).
 */
function* gated<T>(st: TierState, refused: T, body: () => Gen<T>): Gen<T> {
  if (!(yield* enter(st.gate, 'expert'))) return refused;
  const value = yield* body();
  yield* leave(st.gate);
  return value;
}

const NO_OUTPUTS: TakeResult = { ok: false, outputs: new Map() };

export class Tier {
  readonly st: TierState;

  constructor(cfg: TierConfig) {
    this.st = createState(cfg);
  }

  init(): Gen<InitResult> {
    return framed({ fn: 'init' }, init(this.st));
  }
  shutdown(): Gen<'done' | 'already'> {
    return framed({ fn: 'shutdown' }, shutdown(this.st));
  }
  note(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'note', layer, eid, ram },
      gated(st, false, () => note(st, layer, eid, ram)),
    );
  }
  noteBlock(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'note_block', layer, eid, ram },
      gated(st, false, () => noteBlock(st, layer, eid, ram)),
    );
  }
  planFill(): Gen<readonly ExpertKey[]> {
    const st = this.st;
    return framed(
      { fn: 'plan_fill' },
      gated<readonly ExpertKey[]>(st, [], () => planFill(st)),
    );
  }
  notePlanned(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'note_planned', layer, eid, ram },
      gated(st, false, () => notePlanned(st, layer, eid, ram)),
    );
  }
  fillWait(): Gen<'done' | 'stopped' | 'off'> {
    const st = this.st;
    return framed(
      { fn: 'fill_wait' },
      gated<'done' | 'stopped' | 'off'>(st, 'off', () => fillWait(st)),
    );
  }
  issue(route: RouteInfo): Gen<readonly boolean[]> {
    const st = this.st;
    const none = route.eids.map(() => false);
    return framed(
      { fn: 'issue', route },
      gated<readonly boolean[]>(st, none, () => issue(st, route)),
    );
  }
  take(layer: number): Gen<TakeResult> {
    const st = this.st;
    return framed(
      { fn: 'take', layer },
      gated(st, NO_OUTPUTS, () => take(st, layer)),
    );
  }
  denseMatmul(index: number): Gen<boolean> {
    return framed({ fn: 'dense_matmul', index }, denseMatmul(this.st, index));
  }
  trunkPlace(): Gen<number> {
    return framed({ fn: 'trunk_place' }, trunkPlace(this.st));
  }
  releaseRam(layer: number, eid: number): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'release_ram', layer, eid },
      gated(st, false, () => releaseRam(st, layer, eid)),
    );
  }
  residentCount(): Gen<number> {
    const st = this.st;
    return framed(
      { fn: 'resident_count' },
      gated(st, 0, () => residentCount(st)),
    );
  }
  isResident(layer: number, eid: number): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'is_resident', layer, eid },
      gated(st, false, () => isResident(st, layer, eid)),
    );
  }
  stats(): Gen<TierStats | null> {
    const st = this.st;
    return framed(
      { fn: 'stats' },
      gated<TierStats | null>(st, null, () => stats(st)),
    );
  }
  statsMark(): Gen<boolean> {
    const st = this.st;
    return framed(
      { fn: 'stats_mark' },
      gated(st, false, () => statsMark(st)),
    );
  }
  replan(layer: number, counts: readonly (readonly number[])[], maxSwaps: number): Gen<readonly ReplanPair[]> {
    const st = this.st;
    return framed(
      { fn: 'replan', layer, counts, maxSwaps },
      gated<readonly ReplanPair[]>(st, [], () => replan(st, layer, counts, maxSwaps)),
    );
  }
  evictedTake(max: number): Gen<readonly ExpertKey[]> {
    const st = this.st;
    return framed(
      { fn: 'evicted_take', max },
      gated<readonly ExpertKey[]>(st, [], () => evictedTake(st, max)),
    );
  }
  prefer(layer: number, cands: readonly number[]): Gen<readonly boolean[]> {
    const st = this.st;
    const none = cands.map(() => false);
    return framed(
      { fn: 'prefer', layer, cands },
      gated<readonly boolean[]>(st, none, () => prefer(st, layer, cands)),
    );
  }
}

/**
 * The engine frees a RAM copy it lent: the tier must forget the pointer first (#1341).
 * True when the expert is resident (the engine may free it); refused at the door, the
 * tier holds nothing on the GPU, so the engine keeps every copy.
 */
function* releaseRam(st: TierState, layer: number, eid: number): Gen<boolean> {
  yield LOCK;
  const slot = slotOf(st, layer, eid);
  const resident = slot.resident;
  if (resident) slot.ram = null;
  yield UNLOCK;
  return resident;
}

function* residentCount(st: TierState): Gen<number> {
  yield LOCK;
  let n = 0;
  for (const row of st.slots) for (const slot of row) if (slot.resident) n++;
  yield UNLOCK;
  return n;
}

function* isResident(st: TierState, layer: number, eid: number): Gen<boolean> {
  yield LOCK;
  const resident = slotOf(st, layer, eid).resident;
  yield UNLOCK;
  return resident;
}

/** Hits and misses since the last stats_mark (the prefill/decode boundary), and totals. */
function* stats(st: TierState): Gen<TierStats> {
  yield LOCK;
  const c = st.counters;
  const s: TierStats = {
    hits: c.hits - st.mark.hits,
    misses: c.misses - st.mark.misses,
    uploads: c.uploads,
    swaps: c.swaps,
    evictedDropped: st.evictedDropped,
  };
  yield UNLOCK;
  return s;
}

function* statsMark(st: TierState): Gen<boolean> {
  yield LOCK;
  st.mark = { hits: st.counters.hits, misses: st.counters.misses };
  yield UNLOCK;
  return true;
}

/** Prefer-resident routing: the candidates' residency, as it is under the lock. */
function* prefer(st: TierState, layer: number, cands: readonly number[]): Gen<boolean[]> {
  yield LOCK;
  const mask = cands.map((eid) => slotOf(st, layer, eid).resident);
  yield UNLOCK;
  return mask;
}
