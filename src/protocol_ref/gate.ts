/**
 * The lifecycle gate as the protocol states it (PROTOCOL.md, "Lifecycle gate"), each rule
 * one critical section of gmx:
 *  - admission: an expert entry point only when LIVE, a trunk entry point when LIVE or
 *    DEAD, neither while an exclusive section is queued or held; admitted, a caller is
 *    counted in `live` for its whole body, and the last one out wakes (broadcast gcv) an
 *    exclusive section waiting for it;
 *  - an exclusive section is admitted only from the state its caller may leave and when
 *    no other is queued or held (the state checked before anything is queued: a loser
 *    refuses, never waits); admitted, it queues and waits on gcv until nobody is inside;
 *    from DEAD it takes over the trunk placed while DEAD; leaving it sets the next state
 *    and wakes everyone waiting on gcv.
 * GatedCall wraps an expert call's program in the door and the way out.
 */
import type { SpecIo, SpecValue, Step } from './io.js';
import type { SpecFamily, SpecGate, SpecLife, SpecState } from './state.js';
import { GUNLOCK, type SpecCall } from './call.js';

export type SpecDoor = 'expert' | 'trunk';

export function admits(g: SpecGate, door: SpecDoor): boolean {
  if (g.wantX > 0 || g.x > 0) return false;
  return g.state === 'LIVE' || (door === 'trunk' && g.state === 'DEAD');
}

/** One caller leaves (gmx held): the last one out wakes a waiting exclusive section. */
export function leaveGate(s: SpecState, io: SpecIo): void {
  s.gate.live--;
  if (s.gate.live === 0 && s.gate.wantX > 0) io.op({ k: 'broadcast', cv: 'gcv' }, 'SPEC-GATE');
}

/** Ends an exclusive section in state `to` (gmx held). */
export function leaveExclusive(s: SpecState, io: SpecIo, to: SpecLife): Step {
  s.gate.x--;
  s.gate.state = to;
  io.op({ k: 'broadcast', cv: 'gcv' }, 'SPEC-GATE');
  return GUNLOCK;
}

/** The exclusive entry from `from`, one step at each release of gmx. */
export class ExclusiveEntry {
  private queued = false;
  /** admitted from DEAD: the devices of the trunk matrices placed while DEAD, by offer */
  taken: { index: number; dev: number }[] = [];
  found: SpecLife = 'DEAD';

  /** 'wait': it waits on gcv; 'in': admitted (gmx released); 'refused' (gmx released) */
  step(g: SpecGate, from: SpecLife): 'wait' | 'in' | 'refused' {
    if (!this.queued) {
      this.found = g.state;
      if (g.state !== from || g.wantX > 0 || g.x > 0) return 'refused';
      g.wantX++;
      this.queued = true;
    }
    if (g.live > 0) return 'wait';
    g.wantX--;
    g.x++;
    g.deadTrunk.forEach((dev, index) => {
      if (dev !== null) this.taken.push({ index, dev });
      g.deadTrunk[index] = null;
    });
    return 'in';
  }
}

/** An expert call's program inside the gate's door (refused: `refused`, and nothing else). */
export class GatedCall implements SpecCall {
  private pc: 'door' | 'body' | 'ret' = 'door';
  private value: SpecValue;
  private stepFamily: SpecFamily = 'SPEC-GATE';

  constructor(
    private readonly inner: SpecCall,
    private readonly door: SpecDoor,
    refused: SpecValue,
  ) {
    this.value = refused;
  }

  get family(): SpecFamily {
    return this.stepFamily;
  }

  get tickOutcome(): { decayed: boolean; round: boolean } | null {
    return this.inner.tickOutcome ?? null;
  }

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'door') {
      this.stepFamily = 'SPEC-GATE';
      const admitted = admits(s.gate, this.door);
      if (admitted) s.gate.live++;
      this.pc = admitted ? 'body' : 'ret';
      return GUNLOCK;
    }
    if (this.pc === 'ret') {
      this.stepFamily = this.inner.family;
      return { returned: this.value };
    }
    const r = this.inner.step(s, io);
    this.stepFamily = this.inner.family;
    if (!('returned' in r)) return r;
    // the body returned: its way out of the gate is this release
    this.value = r.returned;
    this.stepFamily = 'SPEC-GATE';
    leaveGate(s, io);
    this.pc = 'ret';
    return GUNLOCK;
  }
}
