/**
 * The tier's public face: one object per engine, every operation a generator that a
 * world (simulated or real) runs. Nothing here knows which world it is in.
 */
import type { ExpertKey, ExpertOutput, Gen, RamRef, RouteInfo } from '../ops.js';
import type { TierConfig } from './config.js';
import { fillWait } from './fill_wait.js';
import { denseMatmul, issue, take } from './group.js';
import { init, type InitResult } from './init.js';
import { note, noteBlock } from './note.js';
import { notePlanned, planFill } from './plan.js';
import { shutdown } from './shutdown.js';
import { createState, slotOf, type TierState } from './state.js';
import { LOCK, UNLOCK } from './sync.js';

export class Tier {
  readonly st: TierState;

  constructor(cfg: TierConfig) {
    this.st = createState(cfg);
  }

  init(): Gen<InitResult> {
    return init(this.st);
  }
  note(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return note(this.st, layer, eid, ram);
  }
  noteBlock(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return noteBlock(this.st, layer, eid, ram);
  }
  planFill(): Gen<ExpertKey[]> {
    return planFill(this.st);
  }
  notePlanned(layer: number, eid: number, ram: RamRef | null): Gen<boolean> {
    return notePlanned(this.st, layer, eid, ram);
  }
  fillWait(): Gen<void> {
    return fillWait(this.st);
  }
  issue(route: RouteInfo): Gen<boolean[]> {
    return issue(this.st, route);
  }
  take(layer: number): Gen<Map<number, ExpertOutput>> {
    return take(this.st, layer);
  }
  denseMatmul(dev: number): Gen<boolean> {
    return denseMatmul(this.st, dev);
  }
  shutdown(): Gen<void> {
    return shutdown(this.st);
  }

  /** The engine frees a RAM copy it lent: the tier must forget the pointer first (#1341). */
  *releaseRam(layer: number, eid: number): Gen<boolean> {
    yield LOCK;
    const slot = slotOf(this.st, layer, eid);
    const resident = slot.resident;
    if (resident) slot.ram = null;
    yield UNLOCK;
    return resident;
  }

  *residentCount(): Gen<number> {
    yield LOCK;
    let n = 0;
    for (const row of this.st.slots) for (const slot of row) if (slot.resident) n++;
    yield UNLOCK;
    return n;
  }
}
