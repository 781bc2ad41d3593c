/**
 * The reference's view of the world during one step: the ops the tier thread actually
 * did since its last step, handed over one by one as the reference expects them. An op
 * the reference expects that the tier did not do, an op of another kind or with other
 * arguments, or an op the tier did that the reference does not expect, is a divergence.
 */
import type { Op } from '../../ops.js';
import type { CheckedWorld } from '../checked_world.js';
import type { SpecIo, SpecOp } from '../../protocol_ref/io.js';
import { SpecError, type SpecFamily } from '../../protocol_ref/state.js';

export interface Observed {
  readonly op: Op;
  readonly result: unknown;
}

/**
 * The heat file's bytes where the run's record does not carry them (a free run's log: the
 * tier wrote or read a file, the log says only that it did). A write of them is taken as
 * the write the reference makes there; a read of them reads what the reference last wrote.
 * The file's contents are then judged where they come back: the heats the tier loads.
 */
export const UNLOGGED_HEAT: Uint8Array = new Uint8Array(0);

export class ObservedIo implements SpecIo {
  private at = 0;
  private ops: readonly Observed[] = [];
  /** the bytes the reference wrote where the tier's were unlogged (null: none yet) */
  private written: Uint8Array | null = null;

  constructor(private readonly world: CheckedWorld) {}

  /** The ops of the next step (one io serves every step: no allocation per release). */
  reset(ops: readonly Observed[]): this {
    this.ops = ops;
    this.at = 0;
    return this;
  }

  /** Ops the tier did that the reference did not take: the first one, described. */
  leftover(): string | null {
    const o = this.ops[this.at];
    return o === undefined ? null : describeOp(o.op);
  }

  op(want: SpecOp, family: SpecFamily): boolean {
    const got = this.next(want, family);
    const mismatch = this.mismatch(want, got.op);
    if (mismatch !== null) {
      // a notify of the other kind or on the other condition variable is a wakeup defect;
      // another op where a notify belongs is the call's own divergence
      const fam = mismatch === 'dev' ? 'SPEC-HOME' : isNotify(want.k) && isNotify(got.op.k) ? 'SPEC-WAKEUP' : family;
      throw new SpecError(fam, `the protocol expects ${describeSpec(want)} here, the tier did ${describeOp(got.op)}`);
    }
    return succeeded(got);
  }

  memInfo(dev: number, family: SpecFamily): number | null {
    const got = this.next({ k: 'memInfo', dev }, family);
    if (got.op.k !== 'memInfo' || got.op.dev !== dev) {
      throw new SpecError(
        family,
        `the protocol expects memInfo of device ${dev} here, the tier did ${describeOp(got.op)}`,
      );
    }
    const r = got.result as { free: number } | null;
    return r === null ? null : r.free;
  }

  readHeat(family: SpecFamily): Uint8Array | null {
    const got = this.next({ k: 'readHeat' }, family);
    if (got.op.k !== 'readHeat')
      throw new SpecError(family, `the protocol reads the heat file here, the tier did ${describeOp(got.op)}`);
    if (got.result === UNLOGGED_HEAT) return this.written;
    return got.result as Uint8Array | null;
  }

  private next(want: SpecOp, family: SpecFamily): Observed {
    const got = this.ops[this.at];
    if (got === undefined) {
      const fam = want.k === 'signal' || want.k === 'broadcast' ? 'SPEC-WAKEUP' : family;
      throw new SpecError(fam, `the protocol expects ${describeSpec(want)} here, the tier did not`);
    }
    this.at++;
    return got;
  }

  /** null: the op matches; 'dev': only the device differs; 'op': anything else differs */
  private mismatch(want: SpecOp, op: Op): 'dev' | 'op' | null {
    if (want.k !== op.k) return 'op';
    const w = this.world;
    switch (want.k) {
      case 'hostAlloc':
        return op.k === 'hostAlloc' && op.what === want.what ? null : 'op';
      case 'hostFree':
        return op.k === 'hostFree' && w.hostArrayKind(op.array) === want.what ? null : 'op';
      case 'spawn':
        return op.k === 'spawn' && op.name === want.name ? null : 'op';
      case 'stage':
        return op.k === 'stage' && key(want.key, op.layer, op.eid) ? null : 'op';
      case 'unstage': {
        if (op.k !== 'unstage') return 'op';
        const o = w.stagingOwner(op.staging);
        return key(want.key, o.layer, o.eid) ? null : 'op';
      }
      case 'upload':
        if (op.k !== 'upload' || !key(want.key, op.layer, op.eid) || op.part !== want.part) return 'op';
        return op.dev === want.dev ? null : 'dev';
      case 'free': {
        if (op.k !== 'free') return 'op';
        const o = w.tensorOwner(op.tensor);
        // a trunk tensor's shadow carries its offer index where an expert's has its id
        const same = want.key === null ? o.layer < 0 && o.eid === want.index : key(want.key, o.layer, o.eid);
        if (!same || o.part !== want.part) return 'op';
        return op.dev === want.dev && o.dev === want.dev ? null : 'dev';
      }
      case 'writeInput':
        if (op.k !== 'writeInput' || op.rows !== want.rows || op.rowOffset !== want.rowOffset)
          return op.k === 'writeInput' && op.dev !== want.dev ? 'dev' : 'op';
        return op.dev === want.dev ? null : 'dev';
      case 'issueGroup':
      case 'takeGroup': {
        if (op.k !== 'issueGroup' && op.k !== 'takeGroup') return 'op';
        if (op.dev !== want.dev) return 'dev';
        if (op.rows.length !== want.eids.length) return 'op';
        for (let i = 0; i < op.rows.length; i++) if (op.rows[i]?.eid !== want.eids[i]) return 'op';
        return null;
      }
      case 'memInfo':
        return 'dev' in op && op.dev === want.dev ? null : 'dev';
      case 'uploadDense':
      case 'denseGemv':
        if ((op.k !== 'uploadDense' && op.k !== 'denseGemv') || op.index !== want.index) return 'op';
        return op.dev === want.dev ? null : 'dev';
      case 'writeHeat':
        if (op.k === 'writeHeat' && op.bytes === UNLOGGED_HEAT) this.written = want.bytes;
        if (op.k === 'writeHeat' && op.bytes === UNLOGGED_HEAT) return null;
        return op.k === 'writeHeat' && sameBytes(op.bytes, want.bytes) ? null : 'op';
      case 'signal':
      case 'broadcast':
        return (op.k === 'signal' || op.k === 'broadcast') && op.cv === want.cv ? null : 'op';
      default:
        return null;
    }
  }
}

function isNotify(k: string): boolean {
  return k === 'signal' || k === 'broadcast';
}

/** The op names this expert. */
function key(a: { layer: number; eid: number }, layer: number, eid: number): boolean {
  return a.layer === layer && a.eid === eid;
}

function succeeded(o: Observed): boolean {
  switch (o.op.k) {
    case 'syncInit':
    case 'issueGroup':
      return o.result === true;
    case 'spawn':
      return typeof o.result === 'number' && o.result >= 0;
    case 'hostAlloc':
    case 'stage':
    case 'upload':
    case 'uploadDense':
    case 'takeGroup':
      return o.result !== null;
    default:
      return true;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);
}

export function describeSpec(o: SpecOp): string {
  switch (o.k) {
    case 'stage':
    case 'unstage':
      return `${o.k} L${o.key.layer}E${o.key.eid}`;
    case 'upload':
      return `upload L${o.key.layer}E${o.key.eid}.${o.part} to device ${o.dev}`;
    case 'free':
      return o.key === null
        ? `free trunk matrix #${o.index} on device ${o.dev}`
        : `free L${o.key.layer}E${o.key.eid}.${o.part} on device ${o.dev}`;
    case 'issueGroup':
    case 'takeGroup':
      return `${o.k} on device ${o.dev} [${o.eids.join(' ')}]`;
    case 'writeInput':
      return `writeInput rows ${o.rowOffset}..${o.rowOffset + o.rows - 1} on device ${o.dev}`;
    case 'signal':
    case 'broadcast':
      return `${o.k} ${o.cv}`;
    case 'hostAlloc':
    case 'hostFree':
      return `${o.k} ${o.what}`;
    case 'memInfo':
      return `${o.k} on device ${o.dev}`;
    case 'uploadDense':
    case 'denseGemv':
      return `${o.k} of trunk matrix #${o.index} on device ${o.dev}`;
    default:
      return o.k;
  }
}

export function describeOp(op: Op): string {
  switch (op.k) {
    case 'stage':
      return `stage L${op.layer}E${op.eid}`;
    case 'upload':
      return `upload L${op.layer}E${op.eid}.${op.part} to device ${op.dev}`;
    case 'free':
      return `free on device ${op.dev}`;
    case 'issueGroup':
    case 'takeGroup':
      return `${op.k} on device ${op.dev} [${op.rows.map((r) => r.eid).join(' ')}]`;
    case 'signal':
    case 'broadcast':
    case 'wait':
      return `${op.k} ${op.cv}`;
    case 'uploadDense':
    case 'denseGemv':
      return `${op.k} of trunk matrix #${op.index} on device ${op.dev}`;
    case 'memInfo':
    case 'writeInput':
      return `${op.k} on device ${op.dev}`;
    default:
      return op.k;
  }
}
