/**
 * The koffi binding of the C tier over a native engine (libtierlab_ctier_<backend>.so,
 * native/tier/tt.h and engine_backend.h): the tier object, its entry points, the engine
 * adapter and the NDJSON event log, for the oracle's C-tier runs.
 *
 * Why a second binding file: the engine's binding (binding.ts) stays the one for the
 * engine's ABI; this library has an ABI of its own (the TT_API functions) and is loaded
 * beside the engine library it was linked against, in the same process, so the engine
 * pointer the oracle already holds is the one the adapter drives.
 * Invariants: the adapter's state, the backend table and the log live in native memory
 * this class allocated (koffi.alloc), never in a JavaScript buffer the collector could
 * move or free while the tier's threads read it; `close()` frees them once, after the
 * tier was destroyed. Struct layouts are declared field by field as tt.h has them.
 * Blocking entry points (fill_wait, note_block, take) are called synchronously: the
 * tier's uploader and the engine's workers are native threads that never call back into
 * JavaScript, so a wait on this thread always ends.
 */
import { existsSync } from 'node:fs';
import koffi, { type LibraryHandle, type TypeObject } from 'koffi';
import type { NativePtr } from './binding.js';
import { libraryFileProblem } from './library_file.js';

type Fn = ReturnType<LibraryHandle['func']>;

/** Bytes reserved for the native structs this file only passes by pointer (each is
 *  smaller: tt_engine_backend about 300, tt_backend 128, tt_log 24, tt_ndjson_sink 56). */
const OPAQUE_BYTES = 1024;

export const TT_INIT_STATES = ['active', 'off', 'already', 'busy'] as const;
export const TT_FILL = ['done', 'stopped', 'off'] as const;

/** A trunk matrix offered to init's placer (tt_trunk_offer): the engine adapter's int8
 *  rows and one scale per row, read during tt_init only (koffi passes them for the call). */
export interface TtTrunkOffer {
  layer: number;
  weight_bytes: number;
  scale_bytes: number;
  rows: number;
  cols: number;
  data: Int8Array;
  scales: Float32Array;
}

/** tt_config, as tt.h declares it. */
export interface TtConfig {
  layers: number;
  experts: number;
  topk: number;
  hidden: number;
  format: number;
  group: number;
  ram_capacity: number;
  weight_bytes: number[];
  scale_bytes: number[];
  budget_bytes: (number | bigint)[];
  reserve_bytes: number | bigint;
  ring_capacity: number;
  want_swaps: number;
  streaming: number;
  heat_path: string | null;
  swap_period: number;
  decay_period: number;
  start_tick: number;
  trunk: TtTrunkOffer[] | null;
  ntrunk: number;
  sync_uploads: number;
  /** evictions kept for tt_evicted_take (0 or over 1024: 1024) */
  evict_capacity: number;
}

export interface TtStats {
  readonly life: number;
  readonly uploads: number;
  readonly upload_failures: number;
  readonly hits: number;
  readonly misses: number;
  readonly swaps: number;
  readonly swaps_abandoned: number;
  readonly queue_full_skips: number;
  readonly inflight: number;
  readonly qn: number;
  readonly resident: number;
}

const PROTOTYPES: Record<string, string> = {
  configDefaults: 'void tt_config_defaults(_Out_ tt_config *cfg)',
  configProblem: 'const char *tt_config_problem(const tt_config *cfg)',
  engineBackend: 'int tt_engine_backend_init(void *eb, void *eng, void *log, void *out)',
  create: 'tt_tier *tt_create(const void *be, void *log)',
  destroy: 'void tt_destroy(tt_tier *t)',
  init: 'int tt_init(tt_tier *t, const tt_config *cfg, _Out_ tt_init_result *out)',
  note: 'int tt_note(tt_tier *t, int layer, int eid, void *ram)',
  noteBlock: 'int tt_note_block(tt_tier *t, int layer, int eid, void *ram)',
  planFill: 'int tt_plan_fill(tt_tier *t, _Out_ int32_t *out, int cap)',
  notePlanned: 'int tt_note_planned(tt_tier *t, int layer, int eid, void *ram)',
  fillWait: 'int tt_fill_wait(tt_tier *t)',
  issue: 'int tt_issue(tt_tier *t, int layer, const int *eids, int k, const float *x, _Out_ uint8_t *mask)',
  take: 'int tt_take(tt_tier *t, _Inout_ float *y, int k, int hidden)',
  residentCount: 'int tt_resident_count(tt_tier *t)',
  releaseRam: 'int tt_release_ram(tt_tier *t, int layer, int eid)',
  statsGet: 'int tt_stats_get(tt_tier *t, _Out_ tt_stats *out)',
  denseMatmul: 'int tt_dense_matmul(tt_tier *t, int id, const float *x, _Out_ float *y)',
  shutdown: 'int tt_shutdown(tt_tier *t)',
  lastError: 'const char *tt_last_error()',
  logInit: 'void tt_log_init(void *log, tt_sink sink)',
  ndjsonOpen: 'int tt_ndjson_sink_open(void *s, const char *path, size_t buffer_bytes)',
  ndjsonClose: 'int tt_ndjson_sink_close(void *s)',
  ndjsonAsSink: 'tt_sink tt_ndjson_sink_as_sink(void *s)',
};

let declared = false;
/** koffi's type names are process-wide: the tier's structs are declared once. */
function declareTypes(): void {
  if (declared) return;
  koffi.opaque('tt_tier');
  koffi.struct('tt_sink', { ctx: 'void *', write: 'void *' });
  koffi.struct('tt_trunk_offer', {
    layer: 'int',
    weight_bytes: 'uint64_t',
    scale_bytes: 'uint64_t',
    rows: 'int',
    cols: 'int',
    data: 'const int8_t *',
    scales: 'const float *',
  });
  koffi.struct('tt_config', {
    layers: 'int',
    experts: 'int',
    topk: 'int',
    hidden: 'int',
    format: 'int',
    group: 'int',
    ram_capacity: 'int',
    weight_bytes: koffi.array('uint64_t', 3),
    scale_bytes: koffi.array('uint64_t', 3),
    budget_bytes: koffi.array('uint64_t', 8),
    reserve_bytes: 'uint64_t',
    ring_capacity: 'int',
    want_swaps: 'int',
    streaming: 'int',
    heat_path: 'const char *',
    swap_period: 'int',
    decay_period: 'int',
    start_tick: 'uint64_t',
    trunk: 'const tt_trunk_offer *',
    ntrunk: 'int',
    sync_uploads: 'int',
    evict_capacity: 'int',
  });
  koffi.struct('tt_init_result', { state: 'int', trunk_base: 'int', reason: koffi.array('char', 160) });
  koffi.struct('tt_stats', {
    life: 'int',
    uploads: 'uint64_t',
    upload_failures: 'uint64_t',
    hits: 'uint64_t',
    misses: 'uint64_t',
    swaps: 'uint64_t',
    swaps_abandoned: 'uint64_t',
    queue_full_skips: 'uint64_t',
    hits_since_mark: 'uint64_t',
    misses_since_mark: 'uint64_t',
    evictions_dropped: 'uint64_t',
    replan_pending: 'int',
    inflight: 'int',
    qn: 'int',
    resident: 'int',
    tick: 'uint64_t',
    exp_bytes: 'uint64_t',
    budget: koffi.array('uint64_t', 8),
    used: koffi.array('uint64_t', 8),
  });
  declared = true;
}

export class CTierError extends Error {
  override readonly name = 'CTierError';
}

/** The C tier library: functions only; a CTierOnEngine is one tier over one engine. */
export class CTierLib {
  private readonly f: Record<string, Fn> = {};

  constructor(readonly path: string) {
    if (!existsSync(path))
      throw new CTierError(`C tier library not found: ${path} (build it with: make -C native ${target(path)})`);
    const fileProblem = libraryFileProblem(path);
    if (fileProblem !== null) throw new CTierError(`cannot load ${path}: ${fileProblem}`);
    let lib: LibraryHandle;
    try {
      lib = koffi.load(path);
    } catch (e) {
      throw new CTierError(`cannot load ${path}: ${(e as Error).message}`);
    }
    declareTypes();
    for (const [name, proto] of Object.entries(PROTOTYPES)) {
      try {
        this.f[name] = lib.func(proto);
      } catch (e) {
        throw new CTierError(`${path} is not a C tier library (${proto.split('(')[0]}): ${(e as Error).message}`);
      }
    }
  }

  fn(name: string): Fn {
    const f = this.f[name];
    if (f === undefined) throw new CTierError(`C tier binding has no function ${name}`);
    return f;
  }

  configDefaults(): TtConfig {
    const cfg = {} as TtConfig;
    this.fn('configDefaults')(cfg);
    return cfg;
  }
}

/** Native bytes of an opaque struct, zeroed. */
function allocBytes(type: TypeObject): unknown {
  const p = koffi.alloc(type, OPAQUE_BYTES);
  koffi.encode(p, koffi.array(type, OPAQUE_BYTES), new Array<number>(OPAQUE_BYTES).fill(0));
  return p;
}

/** One C tier over the engine `engine`, logging NDJSON to `logPath` (null: no log). */
export class CTierOnEngine {
  private readonly u8 = koffi.types.uint8_t;
  private readonly eb: unknown;
  private readonly be: unknown;
  private readonly log: unknown;
  private readonly sink: unknown;
  readonly tier: NativePtr;
  private closed = false;

  constructor(
    private readonly lib: CTierLib,
    engine: NativePtr,
    logPath: string | null,
  ) {
    this.eb = allocBytes(this.u8);
    this.be = allocBytes(this.u8);
    this.log = logPath === null ? null : allocBytes(this.u8);
    this.sink = logPath === null ? null : allocBytes(this.u8);
    if (logPath !== null) {
      if ((lib.fn('ndjsonOpen')(this.sink, logPath, 1 << 16) as number) !== 0)
        throw this.fail(`cannot open the event log ${logPath}`);
      lib.fn('logInit')(this.log, lib.fn('ndjsonAsSink')(this.sink));
    }
    if ((lib.fn('engineBackend')(this.eb, engine, this.log, this.be) as number) !== 0)
      throw this.fail('the engine adapter refused the engine');
    const t = lib.fn('create')(this.be, this.log) as NativePtr;
    if (t === null) throw this.fail('tt_create failed');
    this.tier = t;
  }

  private fail(what: string): CTierError {
    this.freeNative();
    return new CTierError(what);
  }

  /** The tier's answer, or an error carrying tt_last_error's reason (TT_E_* codes). */
  private checked(fn: string, rc: number): number {
    if (rc < 0) throw new CTierError(`tt_${fn}: error ${rc}: ${this.lib.fn('lastError')() as string}`);
    return rc;
  }

  init(cfg: TtConfig): { state: (typeof TT_INIT_STATES)[number]; trunkBase: number; reason: string } {
    const problem = this.lib.fn('configProblem')(cfg) as string | null;
    if (problem !== null) throw new CTierError(`tt_config: ${problem}`);
    const out = { state: 0, trunk_base: 0, reason: '' };
    const rc = this.checked('init', this.lib.fn('init')(this.tier, cfg, out) as number);
    return { state: TT_INIT_STATES[rc] ?? 'busy', trunkBase: out.trunk_base, reason: out.reason };
  }
  note(layer: number, eid: number, ram: NativePtr | null): boolean {
    return this.checked('note', this.lib.fn('note')(this.tier, layer, eid, ram) as number) === 1;
  }
  noteBlock(layer: number, eid: number, ram: NativePtr | null): boolean {
    return this.checked('note_block', this.lib.fn('noteBlock')(this.tier, layer, eid, ram) as number) === 1;
  }
  planFill(cap: number): { layer: number; eid: number }[] {
    const keys = new Int32Array(2 * cap);
    const n = this.checked('plan_fill', this.lib.fn('planFill')(this.tier, keys, cap) as number);
    return Array.from({ length: n }, (_, i) => ({ layer: keys[2 * i] ?? -1, eid: keys[2 * i + 1] ?? -1 }));
  }
  notePlanned(layer: number, eid: number, ram: NativePtr | null): boolean {
    return this.checked('note_planned', this.lib.fn('notePlanned')(this.tier, layer, eid, ram) as number) === 1;
  }
  fillWait(): (typeof TT_FILL)[number] {
    return TT_FILL[this.checked('fill_wait', this.lib.fn('fillWait')(this.tier) as number)] ?? 'off';
  }
  issue(layer: number, eids: Int32Array, x: Float32Array, mask: Uint8Array): number {
    return this.checked('issue', this.lib.fn('issue')(this.tier, layer, eids, eids.length, x, mask) as number);
  }
  /** 1: nothing lost; 0: some group's outputs were lost (their rows of y untouched). */
  take(y: Float32Array, k: number, hidden: number): boolean {
    return this.checked('take', this.lib.fn('take')(this.tier, y, k, hidden) as number) === 1;
  }
  residentCount(): number {
    return this.checked('resident_count', this.lib.fn('residentCount')(this.tier) as number);
  }
  releaseRam(layer: number, eid: number): boolean {
    return this.checked('release_ram', this.lib.fn('releaseRam')(this.tier, layer, eid) as number) === 1;
  }
  /** A snapshot while live; null otherwise. */
  stats(): TtStats | null {
    const out = {} as TtStats;
    return (this.lib.fn('statsGet')(this.tier, out) as number) === 1 ? out : null;
  }
  /** 1: computed on its device; 0: the engine computes it on the CPU. */
  denseMatmul(id: number, x: Float32Array, y: Float32Array): boolean {
    return this.checked('dense_matmul', this.lib.fn('denseMatmul')(this.tier, id, x, y) as number) === 1;
  }
  /** 'done', or 'already' when nothing was live. */
  shutdown(): 'done' | 'already' {
    return this.checked('shutdown', this.lib.fn('shutdown')(this.tier) as number) === 0 ? 'done' : 'already';
  }

  /** Destroys the tier (shutting down what is live), closes the log; once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lib.fn('destroy')(this.tier);
    if (this.sink !== null && (this.lib.fn('ndjsonClose')(this.sink) as number) !== 0) {
      this.freeNative();
      throw new CTierError('the event log could not be written whole');
    }
    this.freeNative();
  }

  private freeNative(): void {
    for (const p of [this.eb, this.be, this.log, this.sink]) if (p !== null && p !== undefined) koffi.free(p);
  }
}

function target(path: string): string {
  const m = /libtierlab_ctier_(\w+)\.so$/.exec(path);
  return m?.[1] === 'cpu' || m?.[1] === undefined ? 'tier' : `tier-${m[1]}`;
}
