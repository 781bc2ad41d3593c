/**
 * Thread code, written by hand for the canonical state's soundness test, whose bug hangs
 * on which record a reference names, not on what the record holds: two threads each
 * upload the same part of expert 0 (two tensors that hold the same thing), and the one
 * that takes mx second either keeps its own tensor or, when expert 0's slot already holds
 * one, points expert 1's slot at that same tensor (leaking its own). The main thread then
 * frees the tensor of each slot: a double free (MEM-DEVICE) in exactly the second order.
 *
 * After both threads, the two orders leave states that hold equal contents (two slots,
 * each with a live gate tensor of expert 0; two live tensors in the ledger) and differ
 * only in aliasing. A digest that folded records by content alone would merge them and
 * prune the order that fails; the canonical digest names records (world_names.ts) and
 * keeps them apart. Compiled with frames (compile_threads.ts, 'resumable'), so the
 * search digests it canonically, as it does the engine's threads.
 */
import { perform, type Gen, type TensorHandle } from '../../src/ops.js';
import { LOCK, UNLOCK } from '../../src/tier/sync.js';
import { resetTables, type TierState } from '../../src/tier/state.js';
import type { Tier } from '../../src/tier/tier.js';

function* uploadGate(): Gen<TensorHandle | null> {
  const ram = yield* perform({ k: 'ramOf', layer: 0, eid: 0 });
  if (ram === null) return null;
  const staging = yield* perform({ k: 'stage', ram, layer: 0, eid: 0 });
  if (staging === null) return null;
  const t = yield* perform({ k: 'upload', dev: 0, staging, part: 'gate', layer: 0, eid: 0 });
  yield { k: 'unstage', staging };
  return t;
}

/** expert 0's slot gets its own tensor */
function* first(st: TierState): Gen<void> {
  const t = yield* uploadGate();
  yield LOCK;
  const slot = st.slots[0]?.[0];
  if (slot !== undefined && t !== null) slot.tensors = [t];
  yield UNLOCK;
}

/** expert 1's slot gets its own tensor, or the one expert 0's slot already holds */
function* second(st: TierState): Gen<void> {
  const t = yield* uploadGate();
  yield LOCK;
  const taken = st.slots[0]?.[0]?.tensors ?? null;
  const slot = st.slots[0]?.[1];
  if (slot !== undefined && t !== null) slot.tensors = taken !== null ? taken : [t];
  yield UNLOCK;
}

export function* aliasingMain(tier: Tier): Gen<void> {
  const st = tier.st;
  resetTables(st);
  const b = yield* perform({ k: 'spawn', name: 'second', body: () => second(st) });
  const a = yield* perform({ k: 'spawn', name: 'first', body: () => first(st) });
  yield { k: 'join', tid: b };
  yield { k: 'join', tid: a };
  for (const eid of [0, 1]) {
    const slot = st.slots[0]?.[eid];
    for (const t of slot?.tensors ?? []) yield { k: 'free', dev: 0, tensor: t };
    if (slot !== undefined) slot.tensors = null;
  }
}
