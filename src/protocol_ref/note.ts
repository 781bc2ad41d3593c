/**
 * The calls that hand the tier an expert (PROTOCOL.md, "note", "note_block",
 * "note_planned"), each one or more critical sections:
 *  - note: heat++, remember the RAM pointer (streaming: keep none, promote now), a plain
 *    enqueue that never blocks;
 *  - note_block: the same, but waits on cv_take while the ring is full and not stopping;
 *  - note_planned: only for a planned expert; null weights give the reservation back at
 *    once; with weights it waits for ring space, enqueues against the reservation, and a
 *    refused enqueue gives the reservation back.
 * Each runs inside the gate (gate.ts): refused at the door, it does nothing; the gate
 * counts the waiting ones, so a teardown waits until no woken caller is left inside.
 */
import { enqueue, heatUp, promoteStreaming } from './enqueue.js';
import type { SpecIo, Step } from './io.js';
import { home, slot, type SpecKey, type SpecState } from './state.js';
import { UNLOCK, WAIT_TAKE, type SpecCall } from './call.js';

const ringFull = (s: SpecState): boolean => s.ring.length === s.cfg.ringCapacity && !s.stop;

/**
 * The waiting part of note_block and note_planned (mx held): wait while the ring is full
 * and not stopping, else enqueue. 'wait' when the call must wait.
 */
function enqueueWhenRoom(s: SpecState, io: SpecIo, key: SpecKey, hasRam: boolean, reserved: boolean): boolean | 'wait' {
  if (ringFull(s)) return 'wait';
  return enqueue(s, key, hasRam, null, reserved, io, 'SPEC-ENQUEUE');
}

export class NoteCall implements SpecCall {
  readonly family = 'SPEC-ENQUEUE' as const;
  private value: boolean | null = null;
  constructor(
    private readonly key: SpecKey,
    private readonly hasRam: boolean,
  ) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.value !== null) return { returned: { fn: 'bool', value: this.value } };
    const sl = slot(s, this.key);
    heatUp(sl);
    if (s.cfg.streaming) {
      this.value = promoteStreaming(s, this.key, this.hasRam, io);
    } else {
      sl.ram = this.hasRam;
      this.value = enqueue(s, this.key, this.hasRam, null, false, io, 'SPEC-ENQUEUE');
    }
    return UNLOCK;
  }
}

export class NoteBlockCall implements SpecCall {
  readonly family = 'SPEC-ENQUEUE' as const;
  private pc: 'enter' | 'wait' | 'ret' = 'enter';
  private value = false;
  constructor(
    private readonly key: SpecKey,
    private readonly hasRam: boolean,
  ) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'ret') return { returned: { fn: 'bool', value: this.value } };
    if (this.pc === 'enter') {
      const sl = slot(s, this.key);
      heatUp(sl);
      sl.ram = this.hasRam;
    }
    const done = enqueueWhenRoom(s, io, this.key, this.hasRam, false);
    if (done === 'wait') {
      this.pc = 'wait';
      return WAIT_TAKE;
    }
    this.value = done;
    this.pc = 'ret';
    return UNLOCK;
  }
}

export class NotePlannedCall implements SpecCall {
  readonly family = 'SPEC-ENQUEUE' as const;
  private pc: 'enter' | 'wait' | 'ret' = 'enter';
  private value = false;
  constructor(
    private readonly key: SpecKey,
    private readonly hasRam: boolean,
  ) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'ret') return { returned: { fn: 'bool', value: this.value } };
    if (this.pc === 'enter') {
      this.pc = 'ret';
      if (!slot(s, this.key).planned) return UNLOCK;
      if (!this.hasRam) {
        this.giveBack(s);
        return UNLOCK;
      }
      slot(s, this.key).ram = true;
    }
    const done = enqueueWhenRoom(s, io, this.key, true, true);
    if (done === 'wait') {
      this.pc = 'wait';
      return WAIT_TAKE;
    }
    this.value = done;
    if (!this.value) this.giveBack(s);
    this.pc = 'ret';
    return UNLOCK;
  }

  /** #1331: the reservation goes back, and the expert may be reconsidered. */
  private giveBack(s: SpecState): void {
    slot(s, this.key).planned = false;
    const dev = home(s, this.key.eid);
    s.used[dev] = (s.used[dev] ?? 0) - s.exp;
  }
}
