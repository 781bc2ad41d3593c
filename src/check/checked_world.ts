/**
 * What a checker may read: the tier's state and the world (the simulated one, or the
 * shadow of a real run). Read only.
 */
import type { HostArray, StagingCopy, TensorHandle } from '../ops.js';
import type { TierState } from '../tier/state.js';
import type { Ledger } from './ledger.js';

/** The world as checkers see it: the simulated one, or the shadow of a real run. */
export interface CheckedWorld {
  readonly ledger: Ledger;
  /** token-layers combined so far, and how many the run must combine */
  readonly combines: number;
  readonly expectedCombines: number;
  /** device tensors and staging copies alive when the backend was shut down */
  readonly leakedAtShutdown: { readonly tensors: number; readonly staging: number } | null;
  /** device bytes a tensor the world handed out really takes */
  deviceBytes(tensor: TensorHandle): number;
  /** what a handle the world handed out holds (layer -1: a trunk matrix, eid its offer index) */
  tensorOwner(tensor: TensorHandle): {
    readonly dev: number;
    readonly layer: number;
    readonly eid: number;
    readonly part: string;
  };
  stagingOwner(staging: StagingCopy): { readonly layer: number; readonly eid: number };
  hostArrayKind(array: HostArray): string;
  /** device memory the backend itself says it holds for tensors on dev (a native
   *  engine's own count: a fill-once arena keeps what it frees); null where the world
   *  has no count but the ledger (the simulator) */
  deviceHeldBytes(dev: number): number | null;
}

export interface CheckContext {
  readonly st: TierState;
  readonly world: CheckedWorld;
}
