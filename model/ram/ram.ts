/**
 * Host RAM the engine lends the tier: slots with lifetimes, so that a read of a freed or
 * recycled slot is an error (the use-after-free of #1341 and of the streaming defect).
 *
 * A lending is a reference {slot, gen}: recycling or freeing a slot bumps its generation,
 * so any older reference is stale. The engine's table says which copy of each expert is
 * current (null: the engine has none to offer until it loads one).
 */
export interface SimRamRef {
  readonly slot: number;
  readonly gen: number;
  readonly layer: number;
  readonly eid: number;
}

interface RamSlot {
  gen: number;
  alive: boolean;
  layer: number;
  eid: number;
}

export type RamReadError = string | null;

export class RamPool {
  private readonly slots: RamSlot[] = [];
  private readonly free: number[] = [];
  private readonly table = new Map<number, SimRamRef>();
  liveSlots = 0;

  constructor(private readonly experts: number) {}

  /** the engine's current copy of an expert, or null */
  current(layer: number, eid: number): SimRamRef | null {
    return this.table.get(layer * this.experts + eid) ?? null;
  }

  /** materialize (or stream in) a copy of an expert; it becomes the current one */
  load(layer: number, eid: number): SimRamRef {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push({ gen: 0, alive: false, layer: -1, eid: -1 });
    }
    const s = this.slots[slot];
    if (s === undefined) throw new Error(`ram slot ${slot} missing`);
    s.gen++;
    s.alive = true;
    s.layer = layer;
    s.eid = eid;
    this.liveSlots++;
    const ref = { slot, gen: s.gen, layer, eid };
    this.table.set(layer * this.experts + eid, ref);
    return ref;
  }

  /** free (or recycle) a slot: every reference to it becomes stale */
  release(ref: SimRamRef): void {
    const s = this.slots[ref.slot];
    if (s === undefined || !s.alive || s.gen !== ref.gen) return;
    s.alive = false;
    s.gen++;
    this.liveSlots--;
    this.free.push(ref.slot);
    const key = ref.layer * this.experts + ref.eid;
    if (this.table.get(key) === ref) this.table.delete(key);
  }

  /** null when the read is legal, else what is wrong with it */
  checkRead(ref: SimRamRef, layer: number, eid: number): RamReadError {
    const s = this.slots[ref.slot];
    if (s === undefined) return `RAM slot ${ref.slot} never existed`;
    if (!s.alive || s.gen !== ref.gen) {
      return `RAM slot ${ref.slot} (lent for L${ref.layer}E${ref.eid}) was freed or recycled before this read`;
    }
    if (ref.layer !== layer || ref.eid !== eid) {
      return `RAM slot ${ref.slot} holds L${ref.layer}E${ref.eid}, read as L${layer}E${eid}`;
    }
    return null;
  }
}
