/**
 * The koffi binding of the native engine's C ABI (native/include/tierlab.h): the only
 * file in tierlab that imports koffi besides ctier_binding.ts (the C tier library's own ABI).
 *
 * Loading checks that the library exists, that it is a tierlab engine and that its ABI
 * version is the one this binding was written for (3); each failure is one clear
 * NativeError. Every prototype spells the function and its parameters as the header
 * does. Every call that can fail returns its status and the message the library wrote
 * into our error buffer; nothing here throws for a failed device operation (those are
 * results the tier handles), only for a broken library.
 * Allocation: synchronous calls share one error buffer (JavaScript runs one call at a
 * time), so a call allocates only its result; asynchronous calls get their own.
 */
import { existsSync } from 'node:fs';
import koffi, { type LibraryHandle } from 'koffi';
import type { TensorPlacement } from '../../fixture/model_types.js';
import { libraryFileProblem } from './library_file.js';

export const ABI_VERSION = 4;
const ERR_CAP = 512;
/** sizeof(tl_completion) and its field offsets (checked by native/tests/test_async.c) */
export const COMPLETION_BYTES = 208;
const C_TAG = 0;
const C_DONE_NS = 8;
const C_KIND = 16;
const C_STATUS = 20;
const C_DEV = 24;
const C_MESSAGE = 32;
const C_MESSAGE_BYTES = 176;
/** tl_completion.kind of a finished group (TL_DONE_GROUP; uploads are TL_DONE_UPLOAD, 1) */
export const DONE_GROUP = 2;

export class NativeError extends Error {
  override readonly name = 'NativeError';
}

/** An opaque native pointer (engine, tensor, RAM copy, staging reference). */
export type NativePtr = unknown;

export interface Status {
  readonly code: number;
  readonly message: string;
}

/** One finished operation from the engine's completion queue (tl_completion). */
export interface Completion {
  readonly tag: number;
  /** tl_clock_ns() when the engine saw it finish */
  readonly doneNs: number;
  readonly kind: number;
  readonly status: number;
  readonly dev: number;
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

const PROTOTYPES: Record<string, string> = {
  backendName: 'const char *tl_backend_name()',
  clock: 'uint64_t tl_clock_ns()',
  create:
    'int tl_engine_create(const int *devices, int ndevices, uint64_t capacity_bytes, _Out_ tl_engine **out, _Out_ uint8_t *err, size_t err_cap)',
  destroy: 'int tl_engine_destroy(tl_engine *eng, _Out_ uint8_t *err, size_t err_cap)',
  memInfo:
    'int tl_mem_info(tl_engine *eng, int dev, _Out_ uint64_t *free_bytes, _Out_ uint64_t *total_bytes, _Out_ uint8_t *err, size_t err_cap)',
  reclaims: 'int tl_reclaims(tl_engine *eng)',
  footprint: 'uint64_t tl_alloc_footprint(uint64_t bytes)',
  setLut: 'int tl_engine_set_lut(tl_engine *eng, const float *lut, _Out_ uint8_t *err, size_t err_cap)',
  upload:
    'int tl_tensor_upload(tl_engine *eng, int dev, int fmt, int rows, int cols, int group, const void *data, size_t data_bytes, const float *scales, size_t nscales, _Out_ tl_tensor **out, _Out_ uint8_t *err, size_t err_cap)',
  free: 'int tl_tensor_free(tl_engine *eng, tl_tensor *t, _Out_ uint8_t *err, size_t err_cap)',
  reserve: 'int tl_tensor_reserve(tl_engine *eng, int dev, uint64_t bytes, _Out_ uint8_t *err, size_t err_cap)',
  issue:
    'int tl_group_issue(tl_engine *eng, int dev, int n, tl_tensor **gate, tl_tensor **up, tl_tensor **down, const float *x, int hidden, uint64_t tag, _Out_ uint8_t *err, size_t err_cap)',
  take: 'int tl_group_take(tl_engine *eng, int dev, _Out_ float *y, int n, int hidden, _Out_ uint8_t *err, size_t err_cap)',
  ledger:
    'int tl_ledger(tl_engine *eng, _Out_ uint64_t *count, _Out_ uint64_t *bytes, _Out_ uint8_t *err, size_t err_cap)',
  groupStats:
    'int tl_group_stats(tl_engine *eng, _Out_ uint64_t *issued, _Out_ uint64_t *met_uploads, _Out_ uint8_t *err, size_t err_cap)',
  faultArm: 'int tl_fault_arm(tl_engine *eng, const char *op, int dev, int after, _Out_ uint8_t *err, size_t err_cap)',
  ramLoadFile:
    'int tl_ram_load_file(tl_engine *eng, const char *path, const tl_part *parts, int nparts, _Out_ tl_ram **out, _Out_ uint8_t *err, size_t err_cap)',
  ramFree: 'int tl_ram_free(tl_engine *eng, tl_ram *ram, _Out_ uint8_t *err, size_t err_cap)',
  ramStats:
    'int tl_ram_stats(tl_engine *eng, _Out_ uint64_t *copies, _Out_ uint64_t *host_bytes, _Out_ uint64_t *pinned_bytes, _Out_ uint8_t *err, size_t err_cap)',
  stage: 'int tl_stage(tl_engine *eng, tl_ram *ram, _Out_ tl_staging **out, _Out_ uint8_t *err, size_t err_cap)',
  unstage: 'int tl_unstage(tl_engine *eng, tl_staging *s, _Out_ uint8_t *err, size_t err_cap)',
  uploadStaged:
    'int tl_tensor_upload_staged(tl_engine *eng, int dev, tl_staging *src, int part, uint64_t tag, _Out_ tl_tensor **out, _Out_ uint8_t *err, size_t err_cap)',
  completionsTake:
    'int tl_completions_take(tl_engine *eng, _Out_ uint8_t *out, int max, _Out_ int *n, _Out_ uint8_t *err, size_t err_cap)',
  completionsWait:
    'int tl_completions_wait(tl_engine *eng, int min_ready, int timeout_ms, _Out_ int *ready, _Out_ uint8_t *err, size_t err_cap)',
  expertCpuRam:
    'int tl_expert_cpu_ram(tl_engine *eng, tl_ram *ram, const float *x, _Out_ float *y, _Out_ uint8_t *err, size_t err_cap)',
  copyBandwidth:
    'int tl_copy_bandwidth(tl_engine *eng, int dev, uint64_t bytes, int reps, int pinned, _Out_ double *gbps, _Out_ uint8_t *err, size_t err_cap)',
  denseQuantize:
    'int tl_dense_quantize(const float *w, int rows, int cols, _Out_ int8_t *q, _Out_ float *scales, _Out_ uint8_t *err, size_t err_cap)',
  denseCpu:
    'int tl_dense_cpu(const int8_t *q, const float *scales, int rows, int cols, const float *x, _Out_ float *y, _Out_ uint8_t *err, size_t err_cap)',
  denseMatvec:
    'int tl_dense_matvec(tl_engine *eng, int dev, tl_tensor *w, const float *x, _Out_ float *y, _Out_ uint8_t *err, size_t err_cap)',
  deviceBytes: 'int tl_device_bytes(tl_engine *eng, int dev, uint64_t *bytes, _Out_ uint8_t *err, size_t err_cap)',
  matvec: 'void tl_matvec_f32(const float *w, const float *x, int rows, int cols, _Out_ float *y)',
  rmsnorm: 'void tl_rmsnorm(const float *x, const float *w, int n, _Out_ float *out)',
  attention:
    'void tl_attention(const float *q, const float *k, const float *v, _Inout_ float *kcache, _Inout_ float *vcache, int pos, int hidden, int heads, _Out_ float *o)',
  route:
    'int tl_route(const float *logits, int experts, int k, _Out_ int *ids, _Out_ float *weights, _Out_ uint8_t *err, size_t err_cap)',
  axpy: 'void tl_axpy(_Inout_ float *acc, float w, const float *y, int n)',
  argmax: 'int tl_argmax(const float *v, int n)',
};

/** distinct tensor sizes whose footprint is remembered (a model has a handful) */
const FOOTPRINT_SIZES = 4096;

export class NativeEngineLib {
  readonly backend: string;
  private readonly f: Record<string, Fn> = {};
  private readonly validationMessages: Fn | null;
  private readonly err = Buffer.alloc(ERR_CAP);
  private readonly footprints = new Map<number, number>();
  /** tl_device_bytes's answer (one call at a time: the binding is used from one thread) */
  private readonly heldOut = new BigUint64Array(1);

  constructor(readonly path: string) {
    if (!existsSync(path)) {
      throw new NativeError(`native library not found: ${path} (build it with: make -C native ${guessTarget(path)})`);
    }
    const fileProblem = libraryFileProblem(path);
    if (fileProblem !== null) throw new NativeError(`cannot load ${path}: ${fileProblem}`);
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
    for (const name of ['tl_engine', 'tl_tensor', 'tl_ram', 'tl_staging']) koffi.opaque(name);
    koffi.struct('tl_part', {
      fmt: 'int32_t',
      rows: 'int32_t',
      cols: 'int32_t',
      group: 'int32_t',
      data_at: 'uint64_t',
      scales_at: 'uint64_t',
    });
    for (const [name, proto] of Object.entries(PROTOTYPES)) {
      try {
        this.f[name] = lib.func(proto);
      } catch (e) {
        throw new NativeError(
          `${path} lacks a function of ABI ${ABI_VERSION} (${proto.split('(')[0]}): ${(e as Error).message}`,
        );
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

  /** A synchronous call whose last two arguments are the shared error buffer. */
  private call(name: string, ...args: unknown[]): Status {
    return status(this.fn(name)(...args, this.err, ERR_CAP) as number, this.err);
  }

  /** nanoseconds on the engine's clock (the one completions are stamped with) */
  clockNs(): number {
    return Number(this.fn('clock')());
  }

  createEngine(devices: readonly number[], capacityBytes: number): { status: Status; engine: NativePtr } {
    const out: unknown[] = [null];
    const st = this.call('create', [...devices], devices.length, capacityBytes, out);
    return { status: st, engine: out[0] };
  }

  destroy(eng: NativePtr): Status {
    return this.call('destroy', eng);
  }

  memInfo(eng: NativePtr, dev: number): { status: Status; free: number; total: number } {
    const free = [0];
    const total = [0];
    const st = this.call('memInfo', eng, dev, free, total);
    return { status: st, free: Number(free[0]), total: Number(total[0]) };
  }

  reclaims(eng: NativePtr): boolean {
    return (this.fn('reclaims')(eng) as number) === 1;
  }

  /** tl_alloc_footprint, remembered per size: a pure function of it, asked once per tensor */
  footprint(bytes: number): number {
    let fp = this.footprints.get(bytes);
    if (fp === undefined) {
      fp = Number(this.fn('footprint')(bytes));
      if (this.footprints.size < FOOTPRINT_SIZES) this.footprints.set(bytes, fp);
    }
    return fp;
  }

  setLut(eng: NativePtr, lut: Float32Array): Status {
    return this.call('setLut', eng, lut);
  }

  /** A synchronous upload from memory (the dense trunk's int8 rows): landed on return. */
  upload(
    eng: NativePtr,
    dev: number,
    fmt: number,
    rows: number,
    cols: number,
    data: Int8Array,
    scales: Float32Array,
  ): { status: Status; tensor: NativePtr } {
    const out: unknown[] = [null];
    const st = this.call('upload', eng, dev, fmt, rows, cols, 0, data, data.byteLength, scales, scales.length, out);
    return { status: st, tensor: out[0] };
  }

  free(eng: NativePtr, tensor: NativePtr): Status {
    return this.call('free', eng, tensor);
  }

  /** Makes device memory for `bytes` of tensors ready before the uploads (a warmstart). */
  tensorReserve(eng: NativePtr, dev: number, bytes: number): Status {
    return this.call('reserve', eng, dev, bytes);
  }

  /** Opens a group; with tag != 0 its completion is queued when the device is done. */
  issue(
    eng: NativePtr,
    dev: number,
    gate: NativePtr[],
    up: NativePtr[],
    down: NativePtr[],
    x: Float32Array,
    hidden: number,
    tag: number,
  ): Status {
    return this.call('issue', eng, dev, gate.length, gate, up, down, x, hidden, tag);
  }

  /** Collects the device's group (it waits only if the group is not finished yet). */
  take(eng: NativePtr, dev: number, y: Float32Array, n: number, hidden: number): Status {
    return this.call('take', eng, dev, y, n, hidden);
  }

  ledger(eng: NativePtr): { status: Status; count: number; bytes: number } {
    const count = [0];
    const bytes = [0];
    const st = this.call('ledger', eng, count, bytes);
    return { status: st, count: Number(count[0]), bytes: Number(bytes[0]) };
  }

  /** Groups issued, and of them those that read a tensor still uploading when they opened. */
  groupStats(eng: NativePtr): { status: Status; issued: number; metUploads: number } {
    const issued = [0];
    const met = [0];
    const st = this.call('groupStats', eng, issued, met);
    return { status: st, issued: Number(issued[0]), metUploads: Number(met[0]) };
  }

  faultArm(eng: NativePtr, op: 'upload' | 'issue' | 'take', dev: number, after: number): Status {
    return this.call('faultArm', eng, op, dev, after);
  }

  /** A RAM copy of the given tensors, read from the file by native code. */
  ramLoadFile(eng: NativePtr, path: string, parts: readonly TensorPlacement[]): { status: Status; ram: NativePtr } {
    const out: unknown[] = [null];
    const table = parts.map((p) => ({
      fmt: p.format,
      rows: p.rows,
      cols: p.cols,
      group: p.group,
      data_at: p.dataAt,
      scales_at: p.scalesAt,
    }));
    const st = this.call('ramLoadFile', eng, path, table, parts.length, out);
    return { status: st, ram: out[0] };
  }

  ramFree(eng: NativePtr, ram: NativePtr): Status {
    return this.call('ramFree', eng, ram);
  }

  ramStats(eng: NativePtr): { status: Status; copies: number; hostBytes: number; pinnedBytes: number } {
    const copies = [0];
    const host = [0];
    const pinned = [0];
    const st = this.call('ramStats', eng, copies, host, pinned);
    return { status: st, copies: Number(copies[0]), hostBytes: Number(host[0]), pinnedBytes: Number(pinned[0]) };
  }

  stage(eng: NativePtr, ram: NativePtr): { status: Status; staging: NativePtr } {
    const out: unknown[] = [null];
    const st = this.call('stage', eng, ram, out);
    return { status: st, staging: out[0] };
  }

  unstage(eng: NativePtr, staging: NativePtr): Status {
    return this.call('unstage', eng, staging);
  }

  /** Starts the upload of one part of a staged RAM copy; returns once it is on its way. */
  uploadStaged(
    eng: NativePtr,
    dev: number,
    staging: NativePtr,
    part: number,
    tag: number,
  ): { status: Status; tensor: NativePtr } {
    const out: unknown[] = [null];
    const st = this.call('uploadStaged', eng, dev, staging, part, tag, out);
    return { status: st, tensor: out[0] };
  }

  /** Moves queued completions into `into` (up to `space` entries of COMPLETION_BYTES). */
  completionsTake(eng: NativePtr, into: Buffer, space: number): { status: Status; n: number } {
    const n = [0];
    const st = this.call('completionsTake', eng, into, space, n);
    return { status: st, n: n[0] ?? 0 };
  }

  /** Waits on a native worker thread until at least minReady completions are queued. */
  completionsWaitAsync(
    eng: NativePtr,
    minReady: number,
    timeoutMs: number,
  ): Promise<{ status: Status; ready: number }> {
    const ready = [0];
    const err = Buffer.alloc(ERR_CAP);
    return new Promise((resolve) => {
      this.fn('completionsWait').async(
        eng,
        minReady,
        timeoutMs,
        ready,
        err,
        ERR_CAP,
        (e: Error | null, code: number) => {
          if (e !== null) resolve({ status: { code: -1, message: `koffi: ${e.message}` }, ready: 0 });
          else resolve({ status: status(code, err), ready: ready[0] ?? 0 });
        },
      );
    });
  }

  expertCpuRam(eng: NativePtr, ram: NativePtr, x: Float32Array, y: Float32Array): Status {
    return this.call('expertCpuRam', eng, ram, x, y);
  }

  copyBandwidth(
    eng: NativePtr,
    dev: number,
    bytes: number,
    reps: number,
    pinned: boolean,
  ): { status: Status; gbps: number } {
    const gbps = [0];
    const st = this.call('copyBandwidth', eng, dev, bytes, reps, pinned ? 1 : 0, gbps);
    return { status: st, gbps: gbps[0] ?? 0 };
  }

  /** w [rows][cols] to int8 rows q with power-of-two row scales (MATH.md's int8 trunk). */
  denseQuantize(w: Float32Array, rows: number, cols: number, q: Int8Array, scales: Float32Array): Status {
    return this.call('denseQuantize', w, rows, cols, q, scales);
  }
  /** y = W x on the host from the int8 rows. */
  denseCpu(q: Int8Array, scales: Float32Array, rows: number, cols: number, x: Float32Array, y: Float32Array): Status {
    return this.call('denseCpu', q, scales, rows, cols, x, y);
  }
  /** y = W x on the device, W a format-1 tensor there (the dense path's own buffers). */
  denseMatvec(eng: NativePtr, dev: number, tensor: NativePtr, x: Float32Array, y: Float32Array): Status {
    return this.call('denseMatvec', eng, dev, tensor, x, y);
  }
  /** Device bytes the backend holds for tensors on dev, as it counts them itself. */
  deviceBytes(eng: NativePtr, dev: number): { status: Status; bytes: number } {
    // the count lands straight in a typed array koffi hands over as it is (a checker asks
    // at every release after an upload: an out-array would be marshalled back each time)
    const st = this.call('deviceBytes', eng, dev, this.heldOut);
    return { status: st, bytes: Number(this.heldOut[0] ?? 0n) };
  }

  matvec(w: Float32Array, x: Float32Array, rows: number, cols: number, y: Float32Array): void {
    this.fn('matvec')(w, x, rows, cols, y);
  }
  rmsnorm(x: Float32Array, w: Float32Array, out: Float32Array): void {
    this.fn('rmsnorm')(x, w, x.length, out);
  }
  attention(
    q: Float32Array,
    k: Float32Array,
    v: Float32Array,
    kc: Float32Array,
    vc: Float32Array,
    pos: number,
    heads: number,
    o: Float32Array,
  ): void {
    this.fn('attention')(q, k, v, kc, vc, pos, q.length, heads, o);
  }
  route(logits: Float32Array, k: number): { status: Status; ids: Int32Array; weights: Float32Array } {
    const ids = new Int32Array(k);
    const weights = new Float32Array(k);
    const st = this.call('route', logits, logits.length, k, ids, weights);
    return { status: st, ids, weights };
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

/** The C tier's schedule harness's ABI (native/tier/harness/th.h, TH_ABI_VERSION). */
export const HARNESS_ABI_VERSION = 1;

const HARNESS_PROTOTYPES: Record<string, string> = {
  create: 'th_harness *th_create(const char *heat_path)',
  destroy: 'void th_destroy(th_harness *h)',
  run: 'int th_run(th_harness *h, const double *cfg, int n_cfg, const uint8_t *heat, int n_heat, const double *opts, int n_opts, const uint32_t *choices, int n_choices, _Out_ double *summary)',
  records: 'int th_records(th_harness *h, _Out_ int32_t *out, int cap_words)',
  choices: 'int th_choices(th_harness *h, _Out_ uint32_t *choices, _Out_ uint32_t *widths, int cap)',
  blob: 'int th_blob(th_harness *h, _Out_ uint8_t *out, int cap)',
  description: 'int th_description(th_harness *h, _Out_ uint8_t *out, int cap)',
};

let harnessTypes = false;
/** koffi's type names are global: the harness's opaque handle is declared once a process. */
function declareHarnessTypes(): void {
  if (harnessTypes) return;
  koffi.opaque('th_harness');
  harnessTypes = true;
}

/**
 * The C tier's schedule harness (libtierlab_ctier_sched.so): one whole schedule of the C
 * tier under tierlab's scheduler per call. Each method is one C function of th.h; the
 * arrays are the caller's (no copy): the scenario and options in, the summary, records,
 * choices and heat bytes out.
 */
export class CTierHarnessLib {
  private readonly f: Record<string, Fn> = {};
  private readonly text = Buffer.alloc(1024);

  constructor(readonly path: string) {
    if (!existsSync(path))
      throw new NativeError(`C tier harness not found: ${path} (build it with: make -C native tier-sched-lib)`);
    const fileProblem = libraryFileProblem(path);
    if (fileProblem !== null) throw new NativeError(`cannot load ${path}: ${fileProblem}`);
    let lib: LibraryHandle;
    try {
      lib = koffi.load(path);
    } catch (e) {
      throw new NativeError(`cannot load ${path}: ${(e as Error).message}`);
    }
    let version: number;
    try {
      version = lib.func('int th_abi_version()')() as number;
    } catch {
      throw new NativeError(`${path} is not a C tier harness (it has no th_abi_version)`);
    }
    if (version !== HARNESS_ABI_VERSION)
      throw new NativeError(
        `ABI mismatch: ${path} has harness ABI ${version}, this tierlab expects ${HARNESS_ABI_VERSION}`,
      );
    declareHarnessTypes();
    for (const [name, proto] of Object.entries(HARNESS_PROTOTYPES)) this.f[name] = lib.func(proto);
  }

  private fn(name: string): Fn {
    const f = this.f[name];
    if (f === undefined) throw new NativeError(`harness binding has no function ${name}`);
    return f;
  }

  create(heatPath: string): NativePtr {
    const h = this.fn('create')(heatPath) as NativePtr;
    if (h === null) throw new NativeError(`th_create refused the heat path ${heatPath}`);
    return h;
  }
  destroy(h: NativePtr): void {
    this.fn('destroy')(h);
  }
  run(
    h: NativePtr,
    cfg: Float64Array,
    heat: Uint8Array | null,
    opts: Float64Array,
    choices: Uint32Array,
    summary: Float64Array,
  ): number {
    return this.fn('run')(
      h,
      cfg,
      cfg.length,
      heat,
      heat?.length ?? 0,
      opts,
      opts.length,
      choices,
      choices.length,
      summary,
    ) as number;
  }
  records(h: NativePtr, out: Int32Array): number {
    return this.fn('records')(h, out, out.length) as number;
  }
  choices(h: NativePtr, choices: Uint32Array, widths: Uint32Array): number {
    return this.fn('choices')(h, choices, widths, Math.min(choices.length, widths.length)) as number;
  }
  blob(h: NativePtr, out: Uint8Array): number {
    return this.fn('blob')(h, out, out.length) as number;
  }
  description(h: NativePtr): string {
    const n = this.fn('description')(h, this.text, this.text.length) as number;
    return this.text.toString('utf8', 0, Math.min(n, this.text.length - 1));
  }
}

/** Completion `i` of a buffer filled by completionsTake. */
export function readCompletion(buf: Buffer, i: number): Completion {
  const at = i * COMPLETION_BYTES;
  const end = buf.indexOf(0, at + C_MESSAGE);
  const stop = end < 0 || end > at + C_MESSAGE + C_MESSAGE_BYTES ? at + C_MESSAGE + C_MESSAGE_BYTES : end;
  return {
    tag: Number(buf.readBigUInt64LE(at + C_TAG)),
    doneNs: Number(buf.readBigUInt64LE(at + C_DONE_NS)),
    kind: buf.readInt32LE(at + C_KIND),
    status: buf.readInt32LE(at + C_STATUS),
    dev: buf.readInt32LE(at + C_DEV),
    message: buf.toString('utf8', at + C_MESSAGE, stop),
  };
}

function guessTarget(path: string): string {
  const m = /libtierlab_(\w+)\.so$/.exec(path);
  return m?.[1] ?? 'cpu';
}
