/**
 * The simulated device allocator's real footprint for one allocation.
 *
 * This is the world's ground truth, kept apart from the tier's own arithmetic
 * (src/tier/sizes.ts) on purpose: the checkers compare what the tier believes it was
 * charged with what the allocator really took, so a tier that charges payload bytes
 * (#687) is caught. Same rule as the engine's allocator: over 1 MiB a multiple of 2 MiB,
 * over 512 KiB a multiple of 1 MiB, else size plus a sixteenth in 8 KiB steps (8 KiB min).
 */
export function deviceFootprint(bytes: number): number {
  const MiB = 1 << 20;
  if (bytes > MiB) return Math.ceil(bytes / (2 * MiB)) * 2 * MiB;
  if (bytes > MiB / 2) return Math.ceil(bytes / MiB) * MiB;
  return Math.max(8192, Math.ceil((bytes + Math.ceil(bytes / 16)) / 8192) * 8192);
}

/** The allocator's rule that sizes an allocation (for coverage: which rules the inputs reach). */
export type AllocatorRule = 'grain-8k' | 'grain-1m' | 'grain-2m';

export function allocatorRule(bytes: number): AllocatorRule {
  const MiB = 1 << 20;
  return bytes > MiB ? 'grain-2m' : bytes > MiB / 2 ? 'grain-1m' : 'grain-8k';
}

/**
 * A size within one row's worth (1/512) above a rule's edge (512 KiB, 1 MiB, a multiple of
 * 2 MiB) or whose padded size is exactly a multiple of the 8 KiB grain: where an
 * off-by-one in the rule shows.
 */
export function atAllocatorEdge(bytes: number): boolean {
  const MiB = 1 << 20;
  if (justPast(bytes, MiB / 2) || justPast(bytes, MiB)) return true;
  if (bytes > MiB) return justPast(bytes, Math.floor((bytes - 1) / (2 * MiB)) * 2 * MiB) && bytes > 2 * MiB;
  const padded = bytes + Math.ceil(bytes / 16);
  return padded % 8192 === 0 || bytes === MiB / 2 || bytes === MiB;
}

/** Within one row's worth (1/512) above `edge`. */
function justPast(bytes: number, edge: number): boolean {
  return bytes > edge && bytes <= edge + Math.ceil(edge / 512);
}
