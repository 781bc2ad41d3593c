/**
 * The ledger both worlds keep: every device allocation, host staging copy, input block
 * write, open group and device buffer in use. The simulated backend answers ops from it
 * (model/sim_engine/sim_world.ts) and the real world mirrors every device op into a shadow
 * of it (src/engine/native/real_world.ts). It is the sanitizer: a use-after-free, a double
 * free, an out-of-block write or two in-flight operations on one buffer are reported at the
 * op that commits them (property ids in src/check/catalogue.ts), like ASan reports at the
 * faulting access.
 *
 * The tier's sync objects are allocations too (sync_objects.ts), and they mark the
 * generations: a generation runs from their create to their destroy, and every device
 * tensor records the generation it was made in, so a group or a GEMV that reads a tensor
 * of another generation (a stale tensor a cache handed back) is MEM-GENERATION.
 *
 * Ground truth only: nothing here reads the tier's state.
 */
import { SyncObjects } from './sync_objects.js';
import type { DeviceBuffer, ExpertPart, HostArrayKind } from '../ops.js';
import { Violation } from './violation.js';

/** What a device tensor holds: one weight tensor of an expert, or a trunk matrix. */
export type TensorPart = ExpertPart | 'dense';

export interface SimTensor {
  readonly id: number;
  readonly dev: number;
  readonly layer: number;
  readonly eid: number;
  readonly part: TensorPart;
  readonly bytes: number;
  /** the generation it was made in (Ledger.generation) */
  readonly gen: number;
  alive: boolean;
  /** open groups that reference it */
  refs: number;
}

export interface SimStaging {
  readonly id: number;
  readonly layer: number;
  readonly eid: number;
  alive: boolean;
}

export interface SimHostArray {
  readonly id: number;
  readonly what: HostArrayKind;
  readonly bytes: number;
  alive: boolean;
}

export interface BlockRow {
  readonly token: number;
  readonly layer: number;
}

export class Ledger {
  readonly tensors: SimTensor[] = [];
  readonly staging: SimStaging[] = [];
  /** live bytes per device (what the allocator holds now) */
  readonly live: number[];
  /** bytes consumed per device: live bytes, or the arena's high-water mark */
  readonly consumed: number[];
  liveTensors = 0;
  liveStaging = 0;
  /** the tier's host arrays (slot table, ring) */
  readonly hostArrays: SimHostArray[] = [];
  liveHostArrays = 0;
  /** the shared input buffer: devices x rowsPerDevice rows, each the activation written */
  readonly inputRows: (BlockRow | null)[];
  /** buffer name -> what holds it in flight */
  private readonly busy = new Map<DeviceBuffer, string>();
  /** per device: tensors referenced by the group in flight */
  readonly openGroups: (SimTensor[] | null)[];
  backendShutdown = false;
  oomFailures = 0;
  /** mx, cv and cv_take: created by init, destroyed by teardown */
  readonly sync = new SyncObjects();

  constructor(
    readonly devices: number,
    readonly rowsPerDevice: number,
    readonly reclaims: boolean,
  ) {
    this.live = new Array<number>(devices).fill(0);
    this.consumed = new Array<number>(devices).fill(0);
    this.inputRows = new Array<BlockRow | null>(devices * rowsPerDevice).fill(null);
    this.openGroups = new Array<SimTensor[] | null>(devices).fill(null);
  }

  /** creates and destroys of the sync objects so far: the generation (even: between two) */
  get generation(): number {
    return this.sync.transitions;
  }

  alloc(dev: number, layer: number, eid: number, part: TensorPart, bytes: number): SimTensor {
    const gen = this.generation;
    const t: SimTensor = { id: this.tensors.length, dev, layer, eid, part, bytes, gen, alive: true, refs: 0 };
    this.tensors.push(t);
    this.liveTensors++;
    this.live[dev] = (this.live[dev] ?? 0) + bytes;
    this.consumed[dev] = (this.consumed[dev] ?? 0) + bytes;
    return t;
  }

  free(t: SimTensor, dev: number): void {
    if (!t.alive) throw new Violation('MEM-DEVICE', `double free of tensor ${describeTensor(t)}`);
    if (t.dev !== dev) throw new Violation('MEM-DEVICE', `tensor ${describeTensor(t)} freed on device ${dev}`);
    if (t.refs > 0 && !this.backendShutdown) {
      throw new Violation(
        'MEM-DEVICE',
        `tensor ${describeTensor(t)} freed while an open group on device ${t.dev} reads it`,
      );
    }
    t.alive = false;
    this.liveTensors--;
    this.live[t.dev] = (this.live[t.dev] ?? 0) - t.bytes;
    // a fill-once arena never gives a slice back
    if (this.reclaims) this.consumed[t.dev] = (this.consumed[t.dev] ?? 0) - t.bytes;
  }

  stage(layer: number, eid: number): SimStaging {
    const s: SimStaging = { id: this.staging.length, layer, eid, alive: true };
    this.staging.push(s);
    this.liveStaging++;
    return s;
  }

  /** `s` is what the tier handed back: a faulty tier may hand back no copy at all */
  unstage(s: SimStaging | null | undefined): void {
    if (s === null || s === undefined) throw new Violation('MEM-HOST', 'unstage has no staging copy to free');
    if (!s.alive) throw new Violation('MEM-HOST', `staging copy s${s.id} (L${s.layer}E${s.eid}) freed twice`);
    s.alive = false;
    this.liveStaging--;
  }

  /** The backend is brought up again after a shutdown: a fill-once arena starts empty. */
  newSession(): void {
    this.backendShutdown = false;
    for (let d = 0; d < this.devices; d++) this.consumed[d] = this.live[d] ?? 0;
  }

  hostAlloc(what: HostArrayKind, bytes: number): SimHostArray {
    const a: SimHostArray = { id: this.hostArrays.length, what, bytes, alive: true };
    this.hostArrays.push(a);
    this.liveHostArrays++;
    return a;
  }

  hostFree(a: SimHostArray): void {
    if (!a.alive) throw new Violation('MEM-HOST', `host array h${a.id} (${a.what}) freed twice`);
    a.alive = false;
    this.liveHostArrays--;
  }

  /** the bytes an upload sends must be the expert's own, from a live staging copy */
  checkUploadSource(s: SimStaging | null | undefined, layer: number, eid: number): void {
    if (s === null || s === undefined)
      throw new Violation('MEM-HOST', `upload of L${layer}E${eid} has no staging copy to read`);
    if (!s.alive)
      throw new Violation('MEM-HOST', `upload of L${layer}E${eid} reads staging copy s${s.id} after it was freed`);
    if (s.layer !== layer || s.eid !== eid) {
      throw new Violation('MEM-UPLOAD-BYTES', `upload of L${layer}E${eid} sends the bytes of L${s.layer}E${s.eid}`);
    }
  }

  writeInput(dev: number, rowOffset: number, rows: number, row: BlockRow): void {
    const own = dev * this.rowsPerDevice;
    if (rowOffset < own || rowOffset + rows > own + this.rowsPerDevice) {
      throw new Violation(
        'MEM-BOUNDS',
        `device ${dev} writes input rows ${rowOffset}..${rowOffset + rows - 1}, outside its block ${own}..${own + this.rowsPerDevice - 1}` +
          (rowOffset + rows > this.inputRows.length ? ` and past the ${this.inputRows.length}-row allocation` : ''),
      );
    }
    this.claim(`group_in${dev}`, `input write of device ${dev}`);
    for (let r = rowOffset; r < rowOffset + rows; r++) this.inputRows[r] = row;
    this.busy.delete(`group_in${dev}`);
  }

  /** MEM-GENERATION: `who` reads t, which must be of the current generation */
  checkGeneration(t: SimTensor, who: string): void {
    if (t.gen !== this.generation) {
      throw new Violation(
        'MEM-GENERATION',
        `${who} reads tensor ${describeTensor(t)} of generation ${t.gen} in generation ${this.generation}`,
      );
    }
  }

  openGroup(dev: number, tensors: SimTensor[], holder: string): void {
    for (const t of tensors) {
      if (!t.alive)
        throw new Violation('MEM-DEVICE', `group on device ${dev} issued with freed tensor ${describeTensor(t)}`);
      this.checkGeneration(t, holder);
      if (t.dev !== dev)
        throw new Violation('MEM-DEVICE', `group on device ${dev} uses tensor ${describeTensor(t)} of device ${t.dev}`);
    }
    for (const t of tensors) t.refs++;
    this.openGroups[dev] = tensors;
    this.claim(`group_in${dev}`, holder);
    this.claim(`group_out${dev}`, holder);
  }

  closeGroup(dev: number): void {
    const tensors = this.openGroups[dev];
    if (tensors === null || tensors === undefined)
      throw new Violation('MEM-DEVICE', `take on device ${dev} with no group open`);
    for (const t of tensors) {
      if (!t.alive)
        throw new Violation('MEM-DEVICE', `group on device ${dev} computed with freed tensor ${describeTensor(t)}`);
      t.refs--;
    }
    this.openGroups[dev] = null;
    this.busy.delete(`group_in${dev}`);
    this.busy.delete(`group_out${dev}`);
  }

  /** a device operation starts using a buffer: nobody else may have it in flight */
  claim(buf: DeviceBuffer, holder: string): void {
    const other = this.busy.get(buf);
    if (other !== undefined)
      throw new Violation('MEM-BUFFER-OWNER', `${holder} uses buffer ${buf} while ${other} has it in flight`);
    this.busy.set(buf, holder);
  }

  release(buf: DeviceBuffer): void {
    this.busy.delete(buf);
  }
}

export function describeTensor(t: SimTensor): string {
  return t.layer < 0 ? `t${t.id}(dense dev${t.dev})` : `t${t.id}(L${t.layer}E${t.eid}.${t.part} dev${t.dev})`;
}
