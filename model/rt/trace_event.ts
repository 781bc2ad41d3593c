/**
 * What one trace record holds: the typed event of one step, never its words. Sync ops
 * and thread events by their fields, tier calls and returns as the marks carry them
 * (src/ops.ts), a world op with its result typed by the OpResults table, a violation by
 * its catalogued id. The words (trace_text.ts) and the report's data (trace_data.ts) are
 * both derived from these.
 *
 * Invariant: an event is immutable once recorded, and so is everything it points at that
 * its words read (ops are data; world handles keep their ids).
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import type { BackendOp, CvName, MarkName, OpOf, OpResults, TierCall, TierReturn, WorldOpKind } from '../../src/ops.js';

/** A world op with its result, typed by the one table both worlds answer by. */
export type WorldOpEvent = {
  readonly [K in WorldOpKind]: { readonly k: 'op'; readonly op: OpOf<K>; readonly result: OpResults[K] };
}[WorldOpKind];

/** Who woke a waiter: a signal or broadcast of thread `by`, or a spurious wakeup (by -1). */
export type WakeCause = 'signal' | 'broadcast' | 'spurious';

export type TraceEvent =
  /** mutex: the lifecycle gate's gmx; absent for the tier's mx (traces always said plain `lock`) */
  | { readonly k: 'lock'; readonly mutex?: 'gmx' }
  | { readonly k: 'unlock'; readonly mutex?: 'gmx' }
  | { readonly k: 'wait'; readonly cv: CvName }
  /** waiters: how many were on the cv when it was signalled (0: nobody to wake) */
  | { readonly k: 'signal'; readonly cv: CvName; readonly waiters: number }
  | { readonly k: 'broadcast'; readonly cv: CvName; readonly waiters: number }
  | { readonly k: 'woken'; readonly how: WakeCause; readonly by: number }
  /** a woken thread takes its mutex back (mx unless `mutex` says gmx); its wait returns */
  | { readonly k: 'retake'; readonly mutex?: 'gmx' }
  /** tid -1: the thread could not be started */
  | { readonly k: 'spawn'; readonly name: string; readonly tid: number }
  | { readonly k: 'join'; readonly tid: number }
  | { readonly k: 'end' }
  | { readonly k: 'call'; readonly call: TierCall }
  | { readonly k: 'ret'; readonly ret: TierReturn }
  | { readonly k: 'mark'; readonly what: MarkName; readonly detail: string | undefined }
  | WorldOpEvent
  | { readonly k: 'violation'; readonly property: PropertyId; readonly detail: string };

export type TraceEventKind = TraceEvent['k'];

/** Which side of the world an op belongs to. */
export type OpFamily = 'backend' | 'engine';

/** Each world op's family, as src/ops.ts splits them (a wrong entry does not compile). */
export const OP_FAMILY: { readonly [K in WorldOpKind]: OpOf<K> extends BackendOp ? 'backend' : 'engine' } = {
  hostAlloc: 'backend',
  hostFree: 'backend',
  syncInit: 'backend',
  syncDestroy: 'backend',
  memInfo: 'backend',
  stage: 'backend',
  unstage: 'backend',
  upload: 'backend',
  free: 'backend',
  writeInput: 'backend',
  issueGroup: 'backend',
  takeGroup: 'backend',
  denseGemv: 'backend',
  uploadDense: 'backend',
  readHeat: 'backend',
  writeHeat: 'backend',
  backendShutdown: 'backend',
  route: 'engine',
  routeChoose: 'engine',
  ramOf: 'engine',
  loadRam: 'engine',
  freeRam: 'engine',
  recycleRam: 'engine',
  cpuExpert: 'engine',
  combine: 'engine',
  finishToken: 'engine',
  trunkBegin: 'engine',
  attention: 'engine',
  denseCpu: 'engine',
};

/** Whether a world op failed, read from its typed result (an injected or a real failure). */
export function opFailed(e: WorldOpEvent): boolean {
  switch (e.op.k) {
    case 'upload':
    case 'uploadDense':
    case 'stage':
    case 'hostAlloc':
    case 'takeGroup':
      return e.result === null;
    case 'issueGroup':
    case 'syncInit':
      return e.result === false;
    default:
      return false;
  }
}
