/**
 * shutdown (PROTOCOL.md, "shutdown", "Lifecycle gate"), in two halves. Safe to call
 * twice, and from any thread.
 *
 * The gate decides who tears down: the caller that moves LIVE -> TEARING_DOWN owns the
 * teardown; a second concurrent shutdown loses and waits (on gcv) until the gate leaves
 * TEARING_DOWN, so it never returns before the teardown is complete. A shutdown that finds
 * DEAD returns at once, unless a trunk placed while DEAD is live or still uploading: then
 * it takes an exclusive section from DEAD (waiting for the placement) and frees it.
 *
 * First half (no gate slot: the callers it wakes hold slots of their own, and must get
 * out): save the heat, set stop, wake the uploader on `cv` and on `cv_take` every thread
 * parked in fill_wait, note_block, note_planned, a synchronous issue, and a swap parked on
 * `issue_open`, which then abandons (without that broadcast the join waits for a group
 * only the joiner could close, #1340); join the uploader.
 *
 * Second half, exclusive from TEARING_DOWN, so nobody is inside: the groups still open
 * (an issuer's take refused at the door, or the caller's own: the engine's exit path may
 * run mid-token) are collected, every resident tensor, the trunk, every staging copy and
 * the host arrays released, mx, cv and cv_take destroyed, the backend shut down; then
 * DEAD.
 */
import type { Gen, GroupRow, HostArray, StagingCopy, TensorHandle } from '../ops.js';
import { enterExclusive, GLOCK, GUNLOCK, leaveExclusive, WAIT_GCV, type Gate } from './gate.js';
import { encodeHeat } from './heat_file.js';
import { takeDenseLocked } from './init.js';
import { LOCK, SIGNAL_CV, BROADCAST_TAKE, UNLOCK } from './sync.js';
import type { TierState } from './state.js';

type Role = 'owner' | 'loser' | 'dead' | 'dead-trunk';

export function* shutdown(st: TierState): Gen<'done' | 'already'> {
  const role = yield* beginTeardown(st.gate);
  if (role === 'dead-trunk') return yield* freeTrunkAtDead(st);
  if (role !== 'owner') return 'already';
  yield LOCK;
  const heat = st.cfg.heatFile
    ? encodeHeat(
        st.slots.map((row) => row.map((slot) => slot.heat)),
        st.cfg.experts,
      )
    : null;
  st.stop = true;
  yield SIGNAL_CV;
  yield BROADCAST_TAKE;
  const uploader = st.uploaderTid;
  yield UNLOCK;
  if (heat !== null) yield { k: 'writeHeat', bytes: heat };
  yield { k: 'join', tid: uploader };
  // only this teardown may leave TEARING_DOWN: refused, it cannot free anything
  if (!(yield* enterExclusive(st.gate, 'TEARING_DOWN')).admitted) return 'done';
  yield LOCK;
  const open: { dev: number; rows: GroupRow[] }[] = [];
  st.groups.forEach((rows, dev) => {
    if (rows.length > 0) open.push({ dev, rows });
  });
  st.issueOpen = false;
  const release = releaseAllLocked(st);
  yield UNLOCK;
  // the open groups read resident tensors: collected before anything is freed
  for (const g of open) yield { k: 'takeGroup', dev: g.dev, rows: g.rows };
  for (const r of release.tensors) yield { k: 'free', dev: r.dev, tensor: r.tensor };
  for (const s of release.staging) yield { k: 'unstage', staging: s };
  for (const array of release.arrays) yield { k: 'hostFree', array };
  yield { k: 'syncDestroy' };
  yield { k: 'backendShutdown' };
  yield* leaveExclusive(st.gate, 'DEAD');
  return 'done';
}

/** Who this caller is to the teardown, decided under gmx (a loser waits for it to end). */
function* beginTeardown(g: Gate): Gen<Role> {
  yield GLOCK;
  let role: Role = 'dead';
  if (g.state === 'LIVE') {
    g.state = 'TEARING_DOWN';
    role = 'owner';
  } else if (g.state === 'TEARING_DOWN') {
    role = 'loser';
    while (g.state === 'TEARING_DOWN') yield WAIT_GCV;
  } else if (g.trunkBusy || g.deadTrunk.some((d) => d !== null)) {
    role = 'dead-trunk';
  }
  yield GUNLOCK;
  return role;
}

/** A trunk placed while DEAD, live or uploading: freed in an exclusive section from DEAD. */
function* freeTrunkAtDead(st: TierState): Gen<'done' | 'already'> {
  const entry = yield* enterExclusive(st.gate, 'DEAD');
  // refused: an init or another shutdown holds the section, and it frees the trunk
  if (!entry.admitted) return 'already';
  for (const d of entry.deadTrunk) yield { k: 'free', dev: d.dev, tensor: d.tensor };
  yield { k: 'backendShutdown' };
  yield* leaveExclusive(st.gate, 'DEAD');
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
  for (const d of takeDenseLocked(st)) tensors.push(d);
  // the uploader drains the ring before it leaves; anything left is released anyway
  const staging: StagingCopy[] = [];
  for (const entry of st.ring) if (entry !== null) staging.push(entry.staging);
  const arrays = st.hostArrays;
  st.slots = [];
  st.ring = [];
  st.groups = [];
  st.hostArrays = [];
  st.qn = 0;
  st.uploaderTid = -1;
  st.active = false;
  return { tensors, staging, arrays };
}
