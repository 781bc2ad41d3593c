/**
 * What one expert costs on a device: allocator granularity (PROTOCOL.md, "State").
 *
 * The tier charges budgets with the allocator's footprint, never the payload: charging
 * the payload (#687) makes the planner plan more than fits.
 */
import type { TierConfig } from './config.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** small allocations: padded by 1/16, in 8 KiB steps, at least one step */
const SMALL_GRAIN = 8 * KiB;

/** Bytes the device allocator really takes for one allocation of `bytes`. */
export function allocFootprint(bytes: number): number {
  if (bytes > MiB) return Math.ceil(bytes / (2 * MiB)) * 2 * MiB;
  if (bytes > 512 * KiB) return Math.ceil(bytes / MiB) * MiB;
  const padded = bytes + Math.ceil(bytes / 16);
  return Math.max(SMALL_GRAIN, Math.ceil(padded / SMALL_GRAIN) * SMALL_GRAIN);
}

/** exp_bytes: three weight and three scale allocations, each rounded. */
export function expertBytes(cfg: TierConfig): number {
  let total = 0;
  for (let p = 0; p < 3; p++) {
    total += allocFootprint(cfg.weightBytes[p] ?? 0) + allocFootprint(cfg.scaleBytes[p] ?? 0);
  }
  return total;
}
