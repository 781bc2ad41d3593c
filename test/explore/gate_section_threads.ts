/**
 * Thread code, written by hand for the gate sections' test (model/explore/dpor/
 * gate_sections.ts): a defect that shows only when another thread moves inside a gmx
 * section. `holder` takes gmx and, holding it, places a trunk matrix on device 0 and
 * frees it again (two world ops inside the section, which the tier never does); `looker`
 * asks for device 0's free memory without any lock and, seeing the matrix there (only
 * possible between the holder's two ops), lets go of a gmx it does not hold
 * (SYNC-DISCIPLINE). The holder's own unlock of gmx may go alone; its world ops may not.
 *
 * Compiled with frames (compile_threads.ts, 'resumable'), so the search digests it
 * canonically, as it does the engine's threads.
 */
import { perform, type Gen } from '../../src/ops.js';
import { GLOCK, GUNLOCK } from '../../src/tier/gate.js';
import type { Tier } from '../../src/tier/tier.js';

function* holder(): Gen<void> {
  yield GLOCK;
  const t = yield* perform({ k: 'uploadDense', dev: 0, index: 0, weightBytes: 4096, scaleBytes: 0 });
  if (t !== null) yield { k: 'free', dev: 0, tensor: t };
  yield GUNLOCK;
}

function* looker(): Gen<void> {
  const info = yield* perform({ k: 'memInfo', dev: 0 });
  if (info !== null && info.free < info.total) yield GUNLOCK;
}

export function* gateSectionMain(_tier: Tier): Gen<void> {
  const a = yield* perform({ k: 'spawn', name: 'holder', body: () => holder() });
  const b = yield* perform({ k: 'spawn', name: 'looker', body: () => looker() });
  yield { k: 'join', tid: a };
  yield { k: 'join', tid: b };
}
