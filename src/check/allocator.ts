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
