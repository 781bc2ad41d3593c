/**
 * The koffi binding of the native engine's C ABI (native/include/tierlab.h): the only
 * file in tierlab that imports koffi.
 *
 * Loading checks that the library exists, that it is a tierlab engine and that its
 * ABI version is the one this binding was written for; each failure is one clear
 * NativeError. Every call that can fail returns its status and the message the library
 * wrote into our error buffer; nothing here throws for a failed device operation
 * (those are results the tier handles), only for a broken library.
 */
import { existsSync } from 'node:fs';
import koffi, { type LibraryHandle } from 'koffi';
import { libraryFileProblem } from './library_file.js';

export const ABI_VERSION = 1;
const ERR_CAP = 512;

export class NativeError extends Error {
  override readonly name = 'NativeError';
}

/** An opaque native pointer (engine or tensor). */
export type NativePtr = unknown;

export interface Status {
  readonly code: number;
  readonly message: string;
}

const OK: Status = { code: 0, message: '' };

function errText(buf: Buffer): string {
  const end = buf.indexOf(0);
  return buf.toString('utf8', 0, end < 0 ? buf.length : end);
}

function status(code: number, buf: Buffer): Status {
  return code === 0 ? OK : { code, message: errText(buf) || `error code ${code}` };
}

type Fn = ReturnType<LibraryHandle['func']>;

export class NativeEngineLib {
  readonly backend: string;
  private readonly f: Record<string, Fn> = {};
  private readonly validationMessages: Fn | null;

  constructor(readonly path: string) {
    if (!existsSync(path)) {
      throw new NativeError(`native library not found: ${path} (build it with: make -C native ${guessTarget(path)})`);
    }
    const fileProblem = libraryFileProblem(path); if (fileProblem !== null) throw new NativeError(`cannot load ${path}: ${fileProblem}`);
    let lib: LibraryHandle;
    try {
      lib = koffi.load(path);
    } catch (e) {
      throw new NativeError(`cannot load ${path}: ${(e as Error).message}`);
    }
    let version: number;
    try {
      version = lib.func('uint32_t tl_abi_version()')() as number;
    } catch {
      throw new NativeError(`${path} is not a tierlab engine library (it has no tl_abi_version)`);
    }
    if (version !== ABI_VERSION) {
      throw new NativeError(`ABI mismatch: ${path} has ABI version ${version}, this tierlab expects ${ABI_VERSION}`);
    }
    koffi.opaque('tl_engine');
    koffi.opaque('tl_tensor');
    const decl: Record<string, string> = {
      backendName: 'const char *tl_backend_name()',
      create: 'int tl_engine_create(const int *devices, int n, uint64_t cap, _Out_ tl_engine **out, _Out_ uint8_t *err, size_t errCap)',
      destroy: 'int tl_engine_destroy(tl_engine *eng, _Out_ uint8_t *err, size_t errCap)',
      deviceCount: 'int tl_device_count(tl_engine *eng, _Out_ int *out, _Out_ uint8_t *err, size_t errCap)',
      memInfo: 'int tl_mem_info(tl_engine *eng, int dev, _Out_ uint64_t *free, _Out_ uint64_t *total, _Out_ uint8_t *err, size_t errCap)',
      reclaims: 'int tl_reclaims(tl_engine *eng)',
      footprint: 'uint64_t tl_alloc_footprint(uint64_t bytes)',
      setLut: 'int tl_engine_set_lut(tl_engine *eng, const float *lut, _Out_ uint8_t *err, size_t errCap)',
      upload:
        'int tl_tensor_upload(tl_engine *eng, int dev, int fmt, int rows, int cols, int group, const void *data, size_t dataBytes, const float *scales, size_t nscales, _Out_ tl_tensor **out, _Out_ uint8_t *err, size_t errCap)',
      free: 'int tl_tensor_free(tl_engine *eng, tl_tensor *t, _Out_ uint8_t *err, size_t errCap)',
      issue:
        'int tl_group_issue(tl_engine *eng, int dev, int n, tl_tensor **gate, tl_tensor **up, tl_tensor **down, const float *x, int hidden, _Out_ uint8_t *err, size_t errCap)',
      take: 'int tl_group_take(tl_engine *eng, int dev, _Out_ float *y, int n, int hidden, _Out_ uint8_t *err, size_t errCap)',
      ledger: 'int tl_ledger(tl_engine *eng, _Out_ uint64_t *count, _Out_ uint64_t *bytes, _Out_ uint8_t *err, size_t errCap)',
      faultArm: 'int tl_fault_arm(tl_engine *eng, const char *op, int dev, int after, _Out_ uint8_t *err, size_t errCap)',
      expertCpu:
        'int tl_expert_cpu(int fmt, int hidden, int width, int group, const void *gate, const float *gateS, const void *up, const float *upS, const void *down, const float *downS, const float *lut, const float *x, _Out_ float *y, _Out_ uint8_t *err, size_t errCap)',
      matvec: 'void tl_matvec_f32(const float *w, const float *x, int rows, int cols, _Out_ float *y)',
      rmsnorm: 'void tl_rmsnorm(const float *x, const float *w, int n, _Out_ float *out)',
      attention:
        'void tl_attention(const float *q, const float *k, const float *v, _Inout_ float *kcache, _Inout_ float *vcache, int pos, int hidden, int heads, _Out_ float *o)',
      route: 'int tl_route(const float *logits, int experts, int k, _Out_ int *ids, _Out_ float *weights, _Out_ uint8_t *err, size_t errCap)',
      axpy: 'void tl_axpy(_Inout_ float *acc, float w, const float *y, int n)',
      argmax: 'int tl_argmax(const float *v, int n)',
    };
    for (const [name, proto] of Object.entries(decl)) {
      try {
        this.f[name] = lib.func(proto);
      } catch (e) {
        throw new NativeError(`${path} lacks a function of ABI ${ABI_VERSION} (${proto.split('(')[0]}): ${(e as Error).message}`);
      }
    }
    this.backend = this.fn('backendName')() as string;
    let vm: Fn | null = null;
    try {
      vm = lib.func('int tl_vk_validation_messages()');
    } catch {
      vm = null; // only the Vulkan library has it
    }
    this.validationMessages = vm;
  }

  private fn(name: string): Fn {
    const f = this.f[name];
    if (f === undefined) throw new NativeError(`binding has no function ${name}`);
    return f;
  }

  createEngine(devices: readonly number[], capacityBytes: number): { status: Status; engine: NativePtr } {
    const out: unknown[] = [null];
    const err = Buffer.alloc(ERR_CAP);
    const code = this.fn('create')([...devices], devices.length, capacityBytes, out, err, ERR_CAP) as number;
    return { status: status(code, err), engine: out[0] };
  }

  destroy(eng: NativePtr): Status {
    const err = Buffer.alloc(ERR_CAP);
    return status(this.fn('destroy')(eng, err, ERR_CAP) as number, err);
  }

  memInfo(eng: NativePtr, dev: number): { status: Status; free: number; total: number } {
    const free = [0];
    const total = [0];
    const err = Buffer.alloc(ERR_CAP);
    const code = this.fn('memInfo')(eng, dev, free, total, err, ERR_CAP) as number;
    return { status: status(code, err), free: Number(free[0]), total: Number(total[0]) };
  }

  reclaims(eng: NativePtr): boolean {
    return (this.fn('reclaims')(eng) as number) === 1;
  }

  footprint(bytes: number): number {
    return Number(this.fn('footprint')(bytes));
  }

  setLut(eng: NativePtr, lut: Float32Array): Status {
    const err = Buffer.alloc(ERR_CAP);
    return status(this.fn('setLut')(eng, lut, err, ERR_CAP) as number, err);
  }

  /** Uploads on a native worker thread (koffi async): the caller's thread goes on. */
  uploadAsync(eng: NativePtr, t: UploadArgs): Promise<{ status: Status; tensor: NativePtr }> {
    const out: unknown[] = [null];
    const err = Buffer.alloc(ERR_CAP);
    return new Promise((resolve) => {
      this.fn('upload').async(
        eng, t.dev, t.fmt, t.rows, t.cols, t.group, t.data, t.data.byteLength, t.scales, t.scales.length, out, err, ERR_CAP,
        (e: Error | null, code: number) => {
          if (e !== null) resolve({ status: { code: -1, message: `koffi: ${e.message}` }, tensor: null });
          else resolve({ status: status(code, err), tensor: out[0] });
        },
      );
    });
  }

  free(eng: NativePtr, tensor: NativePtr): Status {
    const err = Buffer.alloc(ERR_CAP);
    return status(this.fn('free')(eng, tensor, err, ERR_CAP) as number, err);
  }

  issue(eng: NativePtr, dev: number, gate: NativePtr[], up: NativePtr[], down: NativePtr[], x: Float32Array, hidden: number): Status {
    const err = Buffer.alloc(ERR_CAP);
    return status(this.fn('issue')(eng, dev, gate.length, gate, up, down, x, hidden, err, ERR_CAP) as number, err);
  }

  /** Waits for the device's group on a native worker thread. */
  takeAsync(eng: NativePtr, dev: number, y: Float32Array, n: number, hidden: number): Promise<Status> {
    const err = Buffer.alloc(ERR_CAP);
    return new Promise((resolve) => {
      this.fn('take').async(eng, dev, y, n, hidden, err, ERR_CAP, (e: Error | null, code: number) => {
        resolve(e !== null ? { code: -1, message: `koffi: ${e.message}` } : status(code, err));
      });
    });
  }

  ledger(eng: NativePtr): { status: Status; count: number; bytes: number } {
    const count = [0];
    const bytes = [0];
    const err = Buffer.alloc(ERR_CAP);
    const code = this.fn('ledger')(eng, count, bytes, err, ERR_CAP) as number;
    return { status: status(code, err), count: Number(count[0]), bytes: Number(bytes[0]) };
  }

  faultArm(eng: NativePtr, op: 'upload' | 'issue' | 'take', dev: number, after: number): Status {
    const err = Buffer.alloc(ERR_CAP);
    return status(this.fn('faultArm')(eng, op, dev, after, err, ERR_CAP) as number, err);
  }

  expertCpu(e: ExpertArgs, lut: Float32Array, x: Float32Array, y: Float32Array): Status {
    const err = Buffer.alloc(ERR_CAP);
    const code = this.fn('expertCpu')(
      e.fmt, e.hidden, e.width, e.group, e.gate, e.gateS, e.up, e.upS, e.down, e.downS, lut, x, y, err, ERR_CAP,
    ) as number;
    return status(code, err);
  }

  matvec(w: Float32Array, x: Float32Array, rows: number, cols: number, y: Float32Array): void {
    this.fn('matvec')(w, x, rows, cols, y);
  }
  rmsnorm(x: Float32Array, w: Float32Array, out: Float32Array): void {
    this.fn('rmsnorm')(x, w, x.length, out);
  }
  attention(q: Float32Array, k: Float32Array, v: Float32Array, kc: Float32Array, vc: Float32Array, pos: number, heads: number, o: Float32Array): void {
    this.fn('attention')(q, k, v, kc, vc, pos, q.length, heads, o);
  }
  route(logits: Float32Array, k: number): { status: Status; ids: Int32Array; weights: Float32Array } {
    const ids = new Int32Array(k);
    const weights = new Float32Array(k);
    const err = Buffer.alloc(ERR_CAP);
    const code = this.fn('route')(logits, logits.length, k, ids, weights, err, ERR_CAP) as number;
    return { status: status(code, err), ids, weights };
  }
  axpy(acc: Float32Array, w: number, y: Float32Array): void {
    this.fn('axpy')(acc, w, y, acc.length);
  }
  argmax(v: Float32Array): number {
    return this.fn('argmax')(v, v.length) as number;
  }

  /** Vulkan validation-layer messages counted so far; null on other backends. */
  validationCount(): number | null {
    return this.validationMessages === null ? null : (this.validationMessages() as number);
  }
}

export interface UploadArgs {
  readonly dev: number;
  readonly fmt: number;
  readonly rows: number;
  readonly cols: number;
  readonly group: number;
  readonly data: Uint8Array | Int8Array;
  readonly scales: Float32Array;
}

export interface ExpertArgs {
  readonly fmt: number;
  readonly hidden: number;
  readonly width: number;
  readonly group: number;
  readonly gate: Uint8Array | Int8Array;
  readonly gateS: Float32Array;
  readonly up: Uint8Array | Int8Array;
  readonly upS: Float32Array;
  readonly down: Uint8Array | Int8Array;
  readonly downS: Float32Array;
}

function guessTarget(path: string): string {
  const m = /libtierlab_(\w+)\.so$/.exec(path);
  return m?.[1] ?? 'cpu';
}

/** Where the library for a backend is built. */
export function libraryPath(backend: string): string {
  return process.env.TIERLAB_LIB ?? `native/build/libtierlab_${backend}.so`;
}
