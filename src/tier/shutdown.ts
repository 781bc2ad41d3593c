/**
 * shutdown (PROTOCOL.md): save heat, stop, wake everyone, join the uploader, release every
 * resident tensor, staging copy and host array, shut the backend down. Safe to call
 * twice, and from any thread.
 *
 * Both condition variables are woken: the uploader on `cv`, and on `cv_take` every
 * thread parked in fill_wait, note_block or note_planned, and a swap parked on
 * `issue_open`, which then abandons: without that broadcast the join waits for a group
 * only the joiner could close (#1340). Shutdown does not return while a caller it woke
 * is still inside one of those calls. The open group still reads resident tensors, so
 * before anything is released it is collected: by shutdown itself when it is still
 * open (even the caller's own: the engine's exit path may run mid-token; its take then
 * reports the group lost and the engine computes those experts on the CPU), and after
 * waiting when the decode thread is issuing or collecting it outside the lock, or a
 * dense GEMV reads a dense tensor.
 */
import type { Gen, GroupRow, HostArray, StagingCopy, TensorHandle } from '../ops.js';
import { encodeHeat } from './heat_file.js';
import { trunkCharge } from './trunk_place.js';
import { BROADCAST_TAKE, LOCK, SIGNAL_CV, UNLOCK, WAIT_TAKE } from './sync.js';
import type { TierState } from './state.js';

export function* shutdown(st: TierState): Gen<'done' | 'already'> {
  yield LOCK;
  if (!st.active || st.stop) {
    yield UNLOCK;
    return 'already';
  }
  const heat = st.cfg.heatFile
    ? encodeHeat(
        st.slots.map((row) => row.map((slot) => slot.heat)),
        st.cfg.experts,
      )
    : null;
  st.stop = true;
  yield SIGNAL_CV;
  yield BROADCAST_TAKE;
  while (st.waitersInside > 0) yield WAIT_TAKE;
  const uploader = st.uploaderTid;
  yield UNLOCK;

  if (heat !== null) yield { k: 'writeHeat', bytes: heat };
  yield { k: 'join', tid: uploader };

  yield LOCK;
  while (st.groupsBusy) yield WAIT_TAKE;
  const open: { dev: number; rows: GroupRow[] }[] = [];
  st.groups.forEach((rows, dev) => {
    if (rows.length > 0) open.push({ dev, rows });
    st.groups[dev] = [];
  });
  if (open.length > 0) st.groupsDrained = true;
  yield UNLOCK;
  for (const g of open) yield { k: 'takeGroup', dev: g.dev, rows: g.rows };

  yield LOCK;
  while (st.denseInflight > 0) yield WAIT_TAKE;
  st.issueOpen = false;
  yield BROADCAST_TAKE;
  const release = releaseAllLocked(st);
  yield UNLOCK;

  for (const r of release.tensors) yield { k: 'free', dev: r.dev, tensor: r.tensor };
  for (const s of release.staging) yield { k: 'unstage', staging: s };
  for (const array of release.arrays) yield { k: 'hostFree', array };
  yield { k: 'backendShutdown' };
  return 'done';
}

interface Release {
  readonly tensors: { dev: number; tensor: TensorHandle }[];
  readonly staging: StagingCopy[];
  readonly arrays: HostArray[];
}

/** Takes everything the tier holds out of its tables (mx held): the tier is off after. */
function releaseAllLocked(st: TierState): Release {
  const tensors: { dev: number; tensor: TensorHandle }[] = [];
  for (const row of st.slots) {
    for (const slot of row) {
      if (slot.tensors !== null) for (const tensor of slot.tensors) tensors.push({ dev: slot.home, tensor });
      if (slot.resident || slot.queued || slot.planned) st.used[slot.home] = (st.used[slot.home] ?? 0) - st.expBytes;
    }
  }
  st.dense.forEach((d, index) => {
    const offer = st.cfg.trunk[index];
    if (d === null || offer === undefined) return;
    tensors.push({ dev: d.dev, tensor: d.tensor });
    st.dense[index] = null;
    st.used[d.dev] = (st.used[d.dev] ?? 0) - trunkCharge(offer);
  });
  // the uploader drains the ring before it leaves; anything left is released anyway
  const staging: StagingCopy[] = [];
  for (const entry of st.ring) if (entry !== null) staging.push(entry.staging);
  const arrays = st.hostArrays;
  st.slots = [];
  st.ring = [];
  st.hostArrays = [];
  st.qn = 0;
  st.uploaderTid = -1;
  st.active = false;
  return { tensors, staging, arrays };
}
