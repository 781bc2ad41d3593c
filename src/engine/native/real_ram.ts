/**
 * The engine's RAM copies of the experts in a real run: native memory (tl_ram), read from
 * the model file by native code, page-locked where the backend can use that; no expert
 * byte passes through JavaScript.
 *
 * Every lending is checked like the simulator's RAM slots: a read of a copy the engine
 * already freed or recycled is the model's MEM-RAM violation here, before the native
 * engine is asked (which would refuse the dead handle too).
 * Invariants: at most one current copy per expert; `load` lends the current copy while
 * it is alive (the engine read it once, at model open) and reads the file again only
 * when there is none; every copy this table made is freed exactly once, by `release`
 * or `releaseAll`. In streaming mode the copies are a RAM LRU's (real_ram_lru.ts): `load`
 * lends one through it and `release` ends that lending, not the copy.
 */
import type { EngineModel, TensorPlacement } from '../../fixture/model_types.js';
import { Violation } from '../../check/violation.js';
import type { NativeEngineLib, NativePtr } from './binding.js';
import { RamLru } from './real_ram_lru.js';

export interface RealRam {
  readonly layer: number;
  readonly eid: number;
  readonly ptr: NativePtr;
  alive: boolean;
}

/** How the engine holds its experts in RAM: every one read at model open, or a per-layer
 *  LRU of `lruPerLayer` (streaming mode). */
export type RamPolicy = { readonly kind: 'resident' } | { readonly kind: 'lru'; readonly lruPerLayer: number };

export class RealRamTable {
  private readonly table = new Map<number, RealRam>();
  /** streaming mode's LRU (null: every expert held from model open) */
  readonly lru: RamLru | null;
  live = 0;
  loads = 0;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    private readonly model: EngineModel,
    policy: RamPolicy,
  ) {
    this.lru = policy.kind === 'lru' ? new RamLru(lib, engine, model, policy.lruPerLayer) : null;
    if (this.lru === null)
      for (let l = 0; l < model.shape.layers; l++) for (let e = 0; e < model.shape.experts; e++) this.load(l, e);
  }

  private parts(layer: number, eid: number): readonly TensorPlacement[] {
    const p = this.model.experts[layer]?.[eid];
    if (p === undefined) throw new Error(`internal error: ${this.model.name} has no expert L${layer}E${eid}`);
    return [p.gate, p.up, p.down];
  }

  current(layer: number, eid: number): RealRam | null {
    return this.table.get(layer * this.model.shape.experts + eid) ?? null;
  }

  /** the engine's RAM copy of an expert: the current one, else read from the file now
   *  (streaming: a lending of the LRU's copy) */
  load(layer: number, eid: number): RealRam {
    if (this.lru !== null) return this.lru.read(layer, eid);
    const have = this.current(layer, eid);
    if (have !== null) return have;
    const r = this.lib.ramLoadFile(this.engine, this.model.expertFile, this.parts(layer, eid));
    if (r.status.code !== 0) throw new Error(`RAM copy of L${layer}E${eid}: ${r.status.message}`);
    const ram: RealRam = { layer, eid, ptr: r.ram, alive: true };
    this.table.set(layer * this.model.shape.experts + eid, ram);
    this.live++;
    this.loads++;
    return ram;
  }

  release(ram: RealRam): void {
    if (!ram.alive) return;
    ram.alive = false;
    if (this.lru !== null) return; // a lending ends; the copy stays in the LRU
    this.live--;
    const key = ram.layer * this.model.shape.experts + ram.eid;
    if (this.table.get(key) === ram) this.table.delete(key);
    const st = this.lib.ramFree(this.engine, ram.ptr);
    if (st.code !== 0)
      throw new Error(`internal error: freeing the RAM copy of L${ram.layer}E${ram.eid}: ${st.message}`);
  }

  /** the end of a run: every copy still held goes back */
  releaseAll(): void {
    for (const ram of [...this.table.values()]) this.release(ram);
    this.lru?.clear();
  }

  check(ram: RealRam, layer: number, eid: number, what: string): void {
    if (!ram.alive)
      throw new Violation(
        'MEM-RAM',
        `${what} of L${layer}E${eid} reads a RAM copy the engine already freed or recycled`,
      );
    if (ram.layer !== layer || ram.eid !== eid) {
      throw new Violation('MEM-RAM', `${what} of L${layer}E${eid} reads the RAM copy of L${ram.layer}E${ram.eid}`);
    }
  }
}
