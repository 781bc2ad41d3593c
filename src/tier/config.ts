/**
 * Tier configuration: what differs between engines and runs.
 *
 * Variants (PROTOCOL.md, "Backends the tier talks to"):
 *  - CUDA-like: several devices, swaps on (the allocator frees and reuses);
 *  - Vulkan-like: one device, fill once (the arena never reclaims, so swaps would leak);
 *  - streaming: experts stream through a RAM LRU, the tier copies during `note`.
 */
export interface TierConfig {
  readonly layers: number;
  readonly experts: number;
  readonly devices: number;
  /** routed experts per token and layer; at most MAX_GROUP_ROWS */
  readonly topk: number;
  /** the experts' weight format (1 int8 per row, 2 int4 per row, 4 int4 grouped, 8 fp8 block) */
  readonly expertFormat: ExpertFormat;
  /** weights per scale group for the grouped formats; 0 for per-row formats */
  readonly groupSize: number;
  /** experts per layer the engine's RAM holds (cap); below `experts` only when streaming */
  readonly ramCapacity: number;
  /** bytes of the three weight tensors and their scales, before allocator rounding */
  readonly weightBytes: readonly [number, number, number];
  readonly scaleBytes: readonly [number, number, number];
  /** per device: bytes the tier may use, or 'auto' = free memory minus reserveBytes */
  readonly budgetBytes: readonly (number | 'auto')[];
  readonly reserveBytes: number;
  /** ring capacity (QCAP; 48 in the engine, small in scenarios so it fills) */
  readonly ringCapacity: number;
  /** LFRU swaps allowed (false on fill-once backends) */
  readonly swaps: boolean;
  readonly streaming: boolean;
  /** read a heat file at init and save it at shutdown */
  readonly heatFile: boolean;
  /** swap check every this many ticks (16 in the engine) */
  readonly swapPeriod: number;
  /** halve every heat every this many ticks (1024 in the engine) */
  readonly decayPeriod: number;
  /** the LFRU tick init starts from (0 in the engine; a scenario may start near a period) */
  readonly startTick: number;
  /** dense trunk matrices offered to the placer, placed before the experts (none: []) */
  readonly trunk: readonly TrunkOffer[];
  /** synchronous uploads (tests, diagnostics): issue first waits until nothing is in flight */
  readonly syncUploads: boolean;
  /** entries of the eviction ring (evicted_take); what overflows is dropped and counted */
  readonly evictCapacity: number;
  /** pending re-plan pairs started per decode tick, at most */
  readonly replanPerTick: number;
}

/** A dense trunk matrix offered to the tier's placer: by name, layer and bytes. */
export interface TrunkOffer {
  readonly name: string;
  /** the layer it belongs to (-1: none, e.g. lm_head) */
  readonly layer: number;
  /** payload of its int8 rows and of its scales (0: no scale allocation), before rounding */
  readonly weightBytes: number;
  readonly scaleBytes: number;
}

/** Expert weight formats, as the C ABI numbers them (TL_FMT_*). */
export type ExpertFormat = 1 | 2 | 4 | 8;

/** Rows one device group holds: the engine's QT_MAX_ROWS. */
export const MAX_GROUP_ROWS = 32;
export const HEAT_MAX = 0xffffffff;

/** The seed engine's constants, named once: every world and every default starts here. */
export const ENGINE_DEFAULTS = {
  /** QCAP: upload ring entries */
  ringCapacity: 48,
  /** an LFRU round every this many ticks */
  swapPeriod: 16,
  /** all heats halved every this many ticks */
  decayPeriod: 1024,
  /** 'auto' budgets keep this much device memory free */
  reserveBytes: 1 << 30,
  /** eviction ring entries */
  evictCapacity: 256,
  /** pending re-plan pairs started per decode tick */
  replanPerTick: 2,
} as const;

/** Bytes of one host slot and one ring entry, for the host allocations init makes. */
export const SLOT_BYTES = 64;
export const RING_ENTRY_BYTES = 32;
