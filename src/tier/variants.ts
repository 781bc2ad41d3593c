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

export function tierConfigFor(backend: BackendTraits, o: TierOptions): TierConfig {
  return {
    layers: o.layers,
    experts: o.experts,
    devices: backend.devices,
    topk: o.topk,
    expertFormat: o.expertFormat,
    groupSize: o.groupSize,
    ramCapacity: o.ramCapacity,
    weightBytes: o.weightBytes,
    scaleBytes: o.scaleBytes,
    budgetBytes: o.budgetBytes,
    reserveBytes: o.reserveBytes,
    ringCapacity: o.ringCapacity,
    swaps: o.wantSwaps && backend.reclaims,
    streaming: o.streaming,
    heatFile: o.heatFile,
    swapPeriod: o.swapPeriod,
    decayPeriod: o.decayPeriod,
    startTick: o.startTick,
    trunk: o.trunk,
    syncUploads: o.syncUploads,
    evictCapacity: o.evictCapacity,
    replanPerTick: o.replanPerTick,
  };
}
