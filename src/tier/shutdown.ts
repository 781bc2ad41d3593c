/**
 * shutdown (PROTOCOL.md): save heat, stop, wake everyone, join the uploader, release every
 * resident tensor and staging copy, shut the backend down. Safe to call twice.
 *
 * It runs on the decode thread (the engine's exit path), possibly mid-token with that
 * thread's own group open. Both condition variables are woken: the uploader on `cv`, and
 * on `cv_take` every thread parked in fill_wait, note_block or note_planned, and a swap
 * parked on `issue_open`, which then abandons: without that broadcast the join waits for
 * a group only the joiner could close (#1340). The open group still reads resident
 * tensors, so it is collected (and its results dropped: the engine recomputes them on
 * the CPU) before anything is released.
 */
import type { Gen, StagingCopy, TensorHandle } from '../ops.js';
import { allocFootprint } from './sizes.js';
import { BROADCAST_TAKE, LOCK, SIGNAL_CV, UNLOCK } from './sync.js';
import type { TierState } from './state.js';

export function* shutdown(st: TierState): Gen<void> {
  yield { k: 'call', fn: 'shutdown' };
  yield LOCK;
  if (st.stop || st.uploaderTid < 0) {
    yield UNLOCK;
    yield { k: 'ret', fn: 'shutdown', value: 'already' };
    return;
  }
  const heat = st.cfg.heatFile ? st.slots.map((row) => row.map((slot) => slot.heat)) : null;
  st.stop = true;
  yield SIGNAL_CV;
  yield BROADCAST_TAKE;
  const uploader = st.uploaderTid;
  yield UNLOCK;

  if (heat !== null) yield { k: 'writeHeat', heat };
  yield { k: 'join', tid: uploader };

  // the caller's own open group: collect it before releasing what it reads
  yield LOCK;
  const open = st.issueOpen ? st.groups.map((rows, dev) => ({ dev, rows })).filter((g) => g.rows.length > 0) : [];
  for (const g of open) st.groups[g.dev] = [];
  yield UNLOCK;
  for (const g of open) yield { k: 'takeGroup', dev: g.dev, rows: g.rows };

  yield LOCK;
  st.issueOpen = false;
  yield BROADCAST_TAKE;
  const release: { dev: number; tensor: TensorHandle }[] = [];
  for (const row of st.slots) {
    for (const slot of row) {
      if (slot.tensors !== null) {
        for (const tensor of slot.tensors) release.push({ dev: slot.home, tensor });
        slot.tensors = null;
      }
      if (slot.resident || slot.queued) st.used[slot.home] = (st.used[slot.home] ?? 0) - st.expBytes;
      slot.resident = false;
      slot.queued = false;
      slot.ram = null;
    }
  }
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const tensor = st.dense[dev];
    if (tensor !== null && tensor !== undefined) {
      release.push({ dev, tensor });
      st.dense[dev] = null;
      st.used[dev] = (st.used[dev] ?? 0) - allocFootprint(st.cfg.denseBytes);
    }
  }
  // the uploader drains the ring before it leaves; anything left is released anyway
  const staging: StagingCopy[] = [];
  for (let i = 0; i < st.ring.length; i++) {
    const entry = st.ring[i];
    if (entry !== null && entry !== undefined) staging.push(entry.staging);
    st.ring[i] = null;
  }
  st.qn = 0;
  st.uploaderTid = -1;
  st.shutdownDone = true;
  yield UNLOCK;

  for (const r of release) yield { k: 'free', dev: r.dev, tensor: r.tensor };
  for (const s of staging) yield { k: 'unstage', staging: s };
  yield { k: 'backendShutdown' };
  yield { k: 'ret', fn: 'shutdown', value: 'done' };
}
