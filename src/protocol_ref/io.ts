/**
 * What the reference expects the tier to do with the world, and how it hears the world's
 * answers. Every effect the protocol prescribes (a staging copy, an upload, a free, a
 * signal or broadcast, a group issued or collected, the heat file written) is an
 * expected op; the refinement check hands the tier's actual ops over one by one, so the
 * reference sees the world's answers (an upload that failed, a device that is full) and
 * says which op it expected where the tier did something else.
 */
import type { SpecFamily, SpecKey, SpecPair } from './state.js';

export type Part = 'gate' | 'up' | 'down';
export const PARTS: readonly Part[] = ['gate', 'up', 'down'];

export type SpecOp =
  | { readonly k: 'hostAlloc' | 'hostFree'; readonly what: 'slots' | 'ring' }
  | { readonly k: 'syncInit' | 'syncDestroy' | 'readHeat' | 'join' | 'backendShutdown' }
  | { readonly k: 'memInfo'; readonly dev: number }
  /** trunk offer `index` uploaded to, or computed on, dev */
  | { readonly k: 'uploadDense' | 'denseGemv'; readonly dev: number; readonly index: number }
  | { readonly k: 'spawn'; readonly name: 'uploader' }
  | { readonly k: 'stage' | 'unstage'; readonly key: SpecKey }
  | { readonly k: 'upload'; readonly dev: number; readonly key: SpecKey; readonly part: Part }
  /** a device tensor: an expert's part, or trunk offer `index` (key null) */
  | { readonly k: 'free'; readonly dev: number; readonly key: SpecKey; readonly part: Part }
  | { readonly k: 'free'; readonly dev: number; readonly key: null; readonly part: 'dense'; readonly index: number }
  | { readonly k: 'writeInput'; readonly dev: number; readonly rowOffset: number; readonly rows: number }
  | { readonly k: 'issueGroup' | 'takeGroup'; readonly dev: number; readonly eids: readonly number[] }
  | { readonly k: 'writeHeat'; readonly bytes: Uint8Array }
  | { readonly k: 'signal' | 'broadcast'; readonly cv: 'cv' | 'cv_take' | 'gcv' };

export interface SpecIo {
  /** The tier's next op must be `op`; true when it succeeded (ops that cannot fail: true). */
  op(op: SpecOp, family: SpecFamily): boolean;
  /** memInfo: the free bytes the world reported, or null */
  memInfo(dev: number, family: SpecFamily): number | null;
  /** readHeat: the heat file's bytes, or null when there is none */
  readHeat(family: SpecFamily): Uint8Array | null;
}

/** How a critical section ends: of mx (unlock, a wait on cv or cv_take), or of the gate's gmx. */
export type Release = 'unlock' | 'wait-cv' | 'wait-take' | 'gunlock' | 'wait-gcv';

/** The end of one step of a call: a release of mx, or the call's return. */
export type Step = { readonly release: Release } | { readonly returned: SpecValue };

/** What a call returns, in the reference's terms. */
export type SpecValue =
  | { readonly fn: 'init'; readonly state: 'active' | 'off' | 'already' | 'busy' }
  | { readonly fn: 'bool'; readonly value: boolean }
  | { readonly fn: 'plan_fill'; readonly keys: readonly SpecKey[] }
  | { readonly fn: 'fill_wait'; readonly value: 'done' | 'stopped' | 'off' }
  | { readonly fn: 'issue'; readonly mask: readonly boolean[] }
  | { readonly fn: 'take'; readonly ok: boolean; readonly collected: readonly number[] }
  | { readonly fn: 'shutdown'; readonly value: 'done' | 'already' }
  | { readonly fn: 'count'; readonly value: number }
  | { readonly fn: 'keys'; readonly keys: readonly SpecKey[] }
  | { readonly fn: 'pairs'; readonly pairs: readonly SpecPair[] }
  | { readonly fn: 'mask'; readonly mask: readonly boolean[] }
  | { readonly fn: 'stats'; readonly stats: SpecStats | null };

/** stats: hits and misses since the last mark, the totals. */
export interface SpecStats {
  readonly hits: number;
  readonly misses: number;
  readonly uploads: number;
  readonly swaps: number;
  readonly evictedDropped: number;
}
