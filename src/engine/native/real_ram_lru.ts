/**
 * Streaming mode's RAM LRU (PROTOCOL.md, "Streaming mode"): per layer, at most
 * `capacity` experts held as native RAM copies; a read of one that is not there reads
 * the model file into a fresh copy, evicting the layer's least recently used one first.
 *
 * What it lends is a lending, not the slot: each read returns a record of its own that
 * dies when the engine recycles it (right after the tier's note, or after a CPU expert),
 * while the copy stays in the LRU for the next read. So a tier that kept the pointer past
 * its call is caught at its next use (MEM-RAM), whether or not the slot was evicted
 * since; an evicted copy's bytes stay alive in native code while a staging reference or
 * an upload still reads them (tl_ram_free).
 * Invariants: per layer at most `capacity` copies; hits + misses = reads; every copy made
 * is freed exactly once (eviction, or `clear`).
 */
import type { EngineModel, TensorPlacement } from '../../fixture/model_types.js';
import type { NativeEngineLib, NativePtr } from './binding.js';

export interface Lending {
  readonly layer: number;
  readonly eid: number;
  readonly ptr: NativePtr;
  alive: boolean;
}

interface Slot {
  readonly eid: number;
  readonly ptr: NativePtr;
}

export class RamLru {
  /** per layer, least recently used first */
  private readonly layers: Slot[][];
  hits = 0;
  misses = 0;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    private readonly model: EngineModel,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`RAM LRU capacity must be at least 1, got ${capacity}`);
    this.layers = model.layers.map(() => []);
  }

  read(layer: number, eid: number): Lending {
    const slots = this.layers[layer];
    if (slots === undefined) throw new Error(`internal error: no layer ${layer}`);
    const at = slots.findIndex((s) => s.eid === eid);
    let slot: Slot;
    if (at >= 0) {
      this.hits++;
      slot = slots.splice(at, 1)[0] as Slot;
    } else {
      this.misses++;
      if (slots.length >= this.capacity) this.free(slots.shift());
      const r = this.lib.ramLoadFile(this.engine, this.model.expertFile, this.parts(layer, eid));
      if (r.status.code !== 0) throw new Error(`RAM copy of L${layer}E${eid}: ${r.status.message}`);
      slot = { eid, ptr: r.ram };
    }
    slots.push(slot);
    return { layer, eid, ptr: slot.ptr, alive: true };
  }

  /** the end of a run: every copy goes back */
  clear(): void {
    for (const slots of this.layers) while (slots.length > 0) this.free(slots.shift());
  }

  private free(slot: Slot | undefined): void {
    if (slot === undefined) return;
    const st = this.lib.ramFree(this.engine, slot.ptr);
    if (st.code !== 0) throw new Error(`internal error: freeing an LRU RAM copy: ${st.message}`);
  }

  private parts(layer: number, eid: number): readonly TensorPlacement[] {
    const p = this.model.experts[layer]?.[eid];
    if (p === undefined) throw new Error(`internal error: ${this.model.name} has no expert L${layer}E${eid}`);
    return [p.gate, p.up, p.down];
  }
}
