/**
 * The tier's variants, derived from what the backend can do (PROTOCOL.md, "Backends").
 *
 * A backend whose frees do not return memory (the Vulkan arena) must never swap: each
 * swap would leak one expert of VRAM. So swaps follow `reclaims`, never a user wish.
 */
import type { TierConfig } from './config.js';

export interface BackendTraits {
  readonly devices: number;
  /** freeing a tensor returns its memory (CUDA) or not (a fill-once arena) */
  readonly reclaims: boolean;
}

export type TierOptions = Omit<TierConfig, 'devices' | 'swaps'> & { readonly wantSwaps: boolean };

export function tierConfigFor(backend: BackendTraits, opts: TierOptions): TierConfig {
  const { wantSwaps, ...rest } = opts;
  return { ...rest, devices: backend.devices, swaps: wantSwaps && backend.reclaims };
}
