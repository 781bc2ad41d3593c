/**
 * The tier's public face: one object per engine, every operation a generator that a
 * world (simulated or real) runs. Nothing here knows which world it is in.
 *
 * Every call is framed here by a `call` mark (its arguments) and a `ret` mark (its
 * result), outside the call's own code, so that checkers follow each thread through the
 * tier even when that code is wrong: a call whose body does nothing still shows as a
 * call that returned without doing its work.
 */
import type { ExpertKey, Gen, InitResult, RamRef, RouteInfo, TakeResult, TierCall, TierReturn } from '../ops.js';
import type { TierConfig } from './config.js';
import { fillWait } from './fill_wait.js';
import { denseMatmul, issue, take } from './group.js';
import { init } from './init.js';
import { note, noteBlock } from './note.js';
import { notePlanned, planFill } from './plan.js';
import { shutdown } from './shutdown.js';
import { createState, slotOf, type TierState } from './state.js';
import { LOCK, UNLOCK } from './sync.js';

/** Runs one tier call between its marks (each API's value type is its TierReturn's). */
function* framed<T>(call: TierCall, body: Gen<T>): Gen<T> {
  yield { k: 'call', call };
  const value = yield* body;
  yield { k: 'ret', ret: { fn: call.fn, value } as TierReturn };
  return value;
}

export class Tier {
  readonly st: TierState;

  constructor(cfg: TierConfig) {
    this.st = createState(cfg);
  }

  init(): Gen<InitResult> {
    return framed({ fn: 'init' }, init(this.st));
  }
  note(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return framed({ fn: 'note', layer, eid, ram }, note(this.st, layer, eid, ram));
  }
  noteBlock(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return framed({ fn: 'note_block', layer, eid, ram }, noteBlock(this.st, layer, eid, ram));
  }
  planFill(): Gen<readonly ExpertKey[]> {
    return framed({ fn: 'plan_fill' }, planFill(this.st));
  }
  notePlanned(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return framed({ fn: 'note_planned', layer, eid, ram }, notePlanned(this.st, layer, eid, ram));
  }
  fillWait(): Gen<'done' | 'stopped' | 'off'> {
    return framed({ fn: 'fill_wait' }, fillWait(this.st));
  }
  issue(route: RouteInfo): Gen<readonly boolean[]> {
    return framed({ fn: 'issue', route }, issue(this.st, route));
  }
  take(layer: number): Gen<TakeResult> {
    return framed({ fn: 'take', layer }, take(this.st, layer));
  }
  denseMatmul(index: number): Gen<boolean> {
    return framed({ fn: 'dense_matmul', index }, denseMatmul(this.st, index));
  }
  shutdown(): Gen<'done' | 'already'> {
    return framed({ fn: 'shutdown' }, shutdown(this.st));
  }
  releaseRam(layer: number, eid: number): Gen<boolean> {
    return framed({ fn: 'release_ram', layer, eid }, releaseRam(this.st, layer, eid));
  }
  residentCount(): Gen<number> {
    return framed({ fn: 'resident_count' }, residentCount(this.st));
  }
}

/**
 * The engine frees a RAM copy it lent: the tier must forget the pointer first (#1341).
 * True when the expert is resident (the engine may free it); a tier that is off holds
 * nothing on the GPU, so the engine keeps every copy.
 */
function* releaseRam(st: TierState, layer: number, eid: number): Gen<boolean> {
  yield LOCK;
  let resident = false;
  if (st.active) {
    const slot = slotOf(st, layer, eid);
    resident = slot.resident;
    if (resident) slot.ram = null;
  }
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
