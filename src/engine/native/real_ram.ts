/**
 * The engine's RAM copies of the experts in a real run. JavaScript never frees memory
 * under us, so a read of a copy the engine already freed or recycled would silently
 * succeed here where the C engine reads garbage: every lending carries a generation,
 * and a stale read is the model's MEM-RAM violation.
 */
import type { ExpertMatrix, ExpertWeights, LoadedModel } from '../../fixture/model_types.js';
import { Violation } from '../../check/violation.js';

export interface RealRam {
  readonly layer: number;
  readonly eid: number;
  readonly weights: ExpertWeights;
  alive: boolean;
}

function copyMatrix(m: ExpertMatrix): ExpertMatrix {
  return { ...m, data: m.data.slice(), scales: m.scales.slice() };
}

export function copyWeights(w: ExpertWeights): ExpertWeights {
  return { gate: copyMatrix(w.gate), up: copyMatrix(w.up), down: copyMatrix(w.down) };
}

export class RealRamTable {
  private readonly table = new Map<number, RealRam>();
  live = 0;

  constructor(
    private readonly model: LoadedModel,
    preload: boolean,
  ) {
    if (preload) for (let l = 0; l < model.shape.layers; l++) for (let e = 0; e < model.shape.experts; e++) this.load(l, e);
  }

  private source(layer: number, eid: number): ExpertWeights {
    const w = this.model.layers[layer]?.experts[eid];
    if (w === undefined) throw new Error(`model has no expert L${layer}E${eid}`);
    return w;
  }

  current(layer: number, eid: number): RealRam | null {
    return this.table.get(layer * this.model.shape.experts + eid) ?? null;
  }

  /** materialize a fresh RAM copy (from the container: the packed weights on disk) */
  load(layer: number, eid: number): RealRam {
    const ram: RealRam = { layer, eid, weights: copyWeights(this.source(layer, eid)), alive: true };
    this.table.set(layer * this.model.shape.experts + eid, ram);
    this.live++;
    return ram;
  }

  release(ram: RealRam): void {
    if (!ram.alive) return;
    ram.alive = false;
    this.live--;
    const key = ram.layer * this.model.shape.experts + ram.eid;
    if (this.table.get(key) === ram) this.table.delete(key);
  }

  check(ram: RealRam, layer: number, eid: number, what: string): void {
    if (!ram.alive) throw new Violation('MEM-RAM', `${what} of L${layer}E${eid} reads a RAM copy the engine already freed or recycled`);
    if (ram.layer !== layer || ram.eid !== eid) {
      throw new Violation('MEM-RAM', `${what} of L${layer}E${eid} reads the RAM copy of L${ram.layer}E${ram.eid}`);
    }
  }
}
