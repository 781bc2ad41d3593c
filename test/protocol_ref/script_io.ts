/**
 * A scripted world for the reference's unit tests: answers every op the reference
 * expects (success unless told otherwise) and records them, so a test reads what the
 * protocol does as a list of ops.
 */
import type { SpecIo, SpecOp } from '../../src/protocol_ref/io.js';
import type { SpecConfig } from '../../src/protocol_ref/config.js';

export class ScriptIo implements SpecIo {
  readonly ops: string[] = [];
  constructor(
    private readonly fails: (op: SpecOp) => boolean = () => false,
    private readonly free: number | null = 1 << 30,
    private readonly heat: Uint8Array | null = null,
  ) {}

  op(op: SpecOp): boolean {
    this.ops.push(text(op));
    return !this.fails(op);
  }
  memInfo(): number | null {
    this.ops.push('memInfo');
    return this.free;
  }
  readHeat(): Uint8Array | null {
    this.ops.push('readHeat');
    return this.heat;
  }
}

export function text(op: SpecOp): string {
  switch (op.k) {
    case 'stage':
    case 'unstage':
      return `${op.k} L${op.key.layer}E${op.key.eid}`;
    case 'upload':
      return `upload L${op.key.layer}E${op.key.eid}.${op.part} dev${op.dev}`;
    case 'free':
      return op.key === null
        ? `free dense dev${op.dev}`
        : `free L${op.key.layer}E${op.key.eid}.${op.part} dev${op.dev}`;
    case 'signal':
    case 'broadcast':
      return `${op.k} ${op.cv}`;
    case 'hostAlloc':
    case 'hostFree':
      return `${op.k} ${op.what}`;
    case 'issueGroup':
    case 'takeGroup':
      return `${op.k} dev${op.dev} [${op.eids.join(' ')}]`;
    case 'writeInput':
      return `writeInput dev${op.dev} +${op.rowOffset} x${op.rows}`;
    case 'memInfo':
    case 'uploadDense':
    case 'denseGemv':
      return `${op.k} dev${op.dev}`;
    default:
      return op.k;
  }
}

export function config(over: Partial<SpecConfig> = {}): SpecConfig {
  return {
    layers: 1,
    experts: 4,
    devices: 1,
    topk: 2,
    format: 2,
    group: 0,
    cap: 4,
    weightBytes: [8192, 8192, 8192],
    scaleBytes: [512, 512, 512],
    budget: [1 << 20],
    reserveBytes: 0,
    ringCapacity: 4,
    swaps: true,
    streaming: false,
    heatFile: false,
    swapPeriod: 16,
    decayPeriod: 1024,
    startTick: 0,
    trunk: [],
    syncUploads: false,
    evictCapacity: 8,
    replanPerTick: 2,
    ...over,
  };
}
