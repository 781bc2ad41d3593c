/**
 * The real world's host-to-device path: staging references and uploads, mirrored into
 * the shadow ledger, and the landing reports that come back from the engine.
 *
 * A staging copy is a counted reference to the RAM copy (tl_stage: its bytes stay until
 * unstage, whatever happens to the RAM copy); an upload starts the copy and returns the
 * tensor at once (tl_tensor_upload_staged), tagged with the tensor it names, so its
 * landing needs no lookup table: the tag says which expert part it was.
 * Invariants: the shadow ledger sees every stage, unstage and upload the engine sees, in
 * the same order; every upload started is counted once in `uploads` and once in
 * `landed` when its completion comes back (RealStats); a failed landing is a failure.
 */
import type { ExpertPart } from '../../ops.js';
import type { EngineModel, TensorPlacement } from '../../fixture/model_types.js';
import type { Ledger, SimStaging, SimTensor } from '../../check/ledger.js';
import type { Completion, NativeEngineLib, NativePtr } from './binding.js';
import type { RealRam, RealRamTable } from './real_ram.js';
import type { RealStats } from './real_stats.js';

const PART_INDEX: Readonly<Record<ExpertPart, number>> = { gate: 0, up: 1, down: 2 };
const PARTS: readonly ExpertPart[] = ['gate', 'up', 'down'];

export interface RealTensor {
  readonly ptr: NativePtr;
  readonly shadow: SimTensor;
  /** device bytes it really takes (the checkers read it like a simulated tensor's) */
  readonly bytes: number;
}

export interface RealStaging {
  readonly ptr: NativePtr;
  readonly shadow: SimStaging;
}

export class RealTransfers {
  constructor(
    private readonly lib: NativeEngineLib,
    private readonly engine: NativePtr,
    private readonly model: EngineModel,
    private readonly ledger: Ledger,
    private readonly ram: RealRamTable,
    private readonly stats: RealStats,
  ) {}

  /** A staging copy: a counted reference to the RAM copy (its bytes stay until unstage). */
  stage(ram: RealRam, layer: number, eid: number): RealStaging | null {
    this.ram.check(ram, layer, eid, 'staging copy');
    const r = this.lib.stage(this.engine, ram.ptr);
    if (r.status.code !== 0) {
      this.stats.failures.push(`stage L${layer}E${eid}: ${r.status.message}`);
      return null;
    }
    return { ptr: r.staging, shadow: this.ledger.stage(layer, eid) };
  }

  unstage(s: RealStaging): void {
    this.ledger.unstage(s.shadow);
    const st = this.lib.unstage(this.engine, s.ptr);
    if (st.code !== 0) this.stats.failures.push(`unstage: ${st.message}`);
  }

  private placement(layer: number, eid: number, part: ExpertPart): TensorPlacement {
    const p = this.model.experts[layer]?.[eid]?.[part];
    if (p === undefined) throw new Error(`internal error: ${this.model.name} has no expert L${layer}E${eid}`);
    return p;
  }

  /** An upload's tag names its tensor (even); groups' tags are odd. */
  private uploadTag(layer: number, eid: number, part: ExpertPart): number {
    return 2 * (1 + PART_INDEX[part] + 3 * (eid + this.model.shape.experts * layer));
  }

  upload(dev: number, staging: RealStaging, part: ExpertPart, layer: number, eid: number): RealTensor | null {
    this.ledger.checkUploadSource(staging.shadow, layer, eid);
    const p = this.placement(layer, eid, part);
    if (this.stats.uploads === 0) this.stats.firstUploadNs = this.lib.clockNs();
    const r = this.lib.uploadStaged(this.engine, dev, staging.ptr, PART_INDEX[part], this.uploadTag(layer, eid, part));
    if (r.status.code !== 0) {
      this.stats.failures.push(`upload L${layer}E${eid}.${part} dev${dev}: ${r.status.message}`);
      return null;
    }
    this.stats.uploads++;
    this.stats.uploadBytes += p.dataBytes + 4 * p.nscales;
    const bytes = this.lib.footprint(p.dataBytes) + this.lib.footprint(4 * p.nscales);
    return { ptr: r.tensor, shadow: this.ledger.alloc(dev, layer, eid, part, bytes), bytes };
  }

  /** An upload's completion: its bytes are on the device (or its copy failed). */
  landed(c: Completion): void {
    const key = c.tag / 2 - 1;
    const part = PARTS[key % 3] ?? 'gate';
    const expert = Math.floor(key / 3);
    const E = this.model.shape.experts;
    const p = this.placement(Math.floor(expert / E), expert % E, part);
    if (c.status !== 0)
      this.stats.failures.push(`upload landing L${Math.floor(expert / E)}E${expert % E}.${part}: ${c.message}`);
    this.stats.land(p.dataBytes + 4 * p.nscales, c.doneNs);
  }
}
