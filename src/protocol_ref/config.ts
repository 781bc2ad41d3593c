/**
 * The engine configuration as the protocol speaks of it (PROTOCOL.md, "init"), and the
 * decisions that follow from it alone: which configurations init refuses and what one
 * expert is charged. Written from the protocol, independently of the tier's own code.
 */

export interface SpecConfig {
  readonly layers: number;
  readonly experts: number;
  readonly devices: number;
  readonly topk: number;
  /** 1 int8 per row, 2 int4 per row, 4 int4 grouped, 8 fp8 with block scales */
  readonly format: number;
  /** weights per scale group (0: per-row scales) */
  readonly group: number;
  /** experts per layer the RAM holds (cap) */
  readonly cap: number;
  readonly weightBytes: readonly number[];
  readonly scaleBytes: readonly number[];
  /** per device: a byte figure, or 'auto' (free memory minus the reserve) */
  readonly budget: readonly (number | 'auto')[];
  readonly reserveBytes: number;
  /** QCAP */
  readonly ringCapacity: number;
  /** LFRU swaps (a backend that reclaims memory, and the engine wants them) */
  readonly swaps: boolean;
  readonly streaming: boolean;
  readonly heatFile: boolean;
  readonly swapPeriod: number;
  readonly decayPeriod: number;
  readonly startTick: number;
  /** the dense trunk matrices offered, placed before the experts */
  readonly trunk: readonly SpecTrunkOffer[];
  /** synchronous uploads: issue waits until nothing is in flight */
  readonly syncUploads: boolean;
  /** the eviction ring's entries */
  readonly evictCapacity: number;
  /** pending re-plan pairs started per decode tick */
  readonly replanPerTick: number;
}

/** A trunk matrix as the protocol offers it: a name, a layer, its weight and scale bytes. */
export interface SpecTrunkOffer {
  readonly name: string;
  readonly layer: number;
  readonly weightBytes: number;
  readonly scaleBytes: number;
}

/** Rows one device's group holds. */
export const GROUP_ROWS = 32;

/** The reason init refuses a configuration, or null. */
export function refusal(c: SpecConfig): string | null {
  if (c.topk > GROUP_ROWS) return 'topk above 32 rows per group';
  if (c.cap < c.experts && !c.streaming) return 'RAM below full residency without streaming';
  if (c.format === 1 && c.group > 0) return 'int8 experts with a group size';
  if (c.streaming && c.heatFile) return 'a heat file in streaming mode';
  return null;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The device allocator's granularity for one allocation. */
export function granular(bytes: number): number {
  if (bytes > MiB) return 2 * MiB * Math.ceil(bytes / (2 * MiB));
  // over 512 KiB and at most 1 MiB (larger sizes took the line above): one MiB exactly
  if (bytes > MiB / 2) return MiB;
  const step = 8 * KiB;
  return Math.max(step, step * Math.ceil((bytes + Math.ceil(bytes / 16)) / step));
}

/** exp_bytes: three weight and three scale allocations at allocator granularity. */
export function expBytes(c: SpecConfig): number {
  let sum = 0;
  for (let i = 0; i < 3; i++) sum += granular(c.weightBytes[i] ?? 0) + granular(c.scaleBytes[i] ?? 0);
  return sum;
}

/** A trunk matrix's charge: its weight allocation, and its scale allocation if it has one. */
export function trunkBytes(o: SpecTrunkOffer): number {
  return granular(o.weightBytes) + (o.scaleBytes > 0 ? granular(o.scaleBytes) : 0);
}

/**
 * "Placed by value per byte before the experts": each matrix is read once per token, so
 * its value per charged byte is its payload over its charge. The offers in the order
 * they are placed: best value first, ties in offer order.
 */
export function trunkRanking(c: SpecConfig): number[] {
  return c.trunk
    .map((o, index) => ({ index, value: (o.weightBytes + o.scaleBytes) / Math.max(1, trunkBytes(o)) }))
    .sort((a, b) => b.value - a.value || a.index - b.index)
    .map((r) => r.index);
}

/** The device with the most room left that can hold `need` (ties: the lower), or -1. */
export function roomiest(budget: readonly number[], used: readonly number[], need: number): number {
  let dev = -1;
  budget.forEach((b, d) => {
    const room = b - (used[d] ?? 0);
    if (room >= need && (dev < 0 || room > (budget[dev] ?? 0) - (used[dev] ?? 0))) dev = d;
  });
  return dev;
}
