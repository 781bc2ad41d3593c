/**
 * issue and take: the decode thread's device groups (PROTOCOL.md, "issue", "take").
 *
 * issue builds, under the lock, one group per device from the routed experts that are
 * resident (at most MAX_GROUP_ROWS rows each), sets `issue_open`, counts hits and misses,
 * and runs the LFRU tick on layer 0. In synchronous mode (cfg.syncUploads) it first waits
 * until nothing is in flight (`inflight`, never the ring count: a dequeued entry is still
 * copying), so a swap chosen at one tick has landed by the next group. The tick runs
 * after the group is built, so a victim may be in the group being issued: that is exactly
 * why the uploader waits for `issue_open` to clear before it frees a victim. Outside the
 * lock, each device's input goes into that device's own block of the input buffer
 * (stride MAX_GROUP_ROWS rows), and the group is issued asynchronously; a device whose
 * issue fails hands its experts back to the CPU (their mask bits are cleared). The mask
 * is exactly the routed experts resident on a device whose issue succeeded. Then, under
 * the lock, the issued groups are published for take.
 *
 * take claims the published groups under the lock, collects each device's outputs
 * outside it, then under the lock clears `issue_open` and broadcasts. A failed collection
 * leaves that device's outputs out (they are lost for this token: the engine computes
 * them on the CPU) and take reports it. Every device is still drained.
 *
 * Both hold a gate slot (tier.ts) from start to end: a teardown's second half waits until
 * the decode thread is out, and collects itself the groups of a take refused at the door.
 */
import { perform, type ExpertOutput, type Gen, type GroupRow, type RouteInfo, type TakeResult } from '../ops.js';
import { MAX_GROUP_ROWS } from './config.js';
import { lfruTickLocked } from './lfru.js';
import { BROADCAST_TAKE, LOCK, UNLOCK, WAIT_TAKE } from './sync.js';
import { slotOf, type TierState } from './state.js';

/** Row offset of a device's block in the tier's input buffer. */
export function inputBlockRow(dev: number): number {
  return dev * MAX_GROUP_ROWS;
}

/** Returns, per route position, whether that expert runs on a device. */
export function* issue(st: TierState, route: RouteInfo): Gen<boolean[]> {
  const mask = new Array<boolean>(route.eids.length).fill(false);
  const rows: GroupRow[][] = [];
  const positions: number[][] = [];
  yield LOCK;
  if (st.cfg.syncUploads) while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;
  if (!st.stop) {
    for (let dev = 0; dev < st.cfg.devices; dev++) {
      rows.push([]);
      positions.push([]);
    }
    st.issueOpen = true;
    for (let k = 0; k < route.eids.length; k++) {
      const eid = route.eids[k] ?? -1;
      const slot = slotOf(st, route.layer, eid);
      const devRows = rows[slot.home];
      const devPos = positions[slot.home];
      if (
        slot.resident &&
        slot.tensors !== null &&
        devRows !== undefined &&
        devPos !== undefined &&
        devRows.length < MAX_GROUP_ROWS
      ) {
        devRows.push({ layer: route.layer, eid, tensors: slot.tensors });
        devPos.push(k);
        mask[k] = true;
        st.counters.hits++;
      } else {
        st.counters.misses++;
      }
    }
    if (route.layer === 0) yield* lfruTickLocked(st);
  }
  yield UNLOCK;

  const issued: GroupRow[][] = rows.map(() => []);
  for (let dev = 0; dev < rows.length; dev++) {
    const devRows = rows[dev] ?? [];
    if (devRows.length === 0) continue;
    const rowOffset = inputBlockRow(dev);
    yield { k: 'writeInput', dev, rowOffset, rows: devRows.length, input: route.input };
    const ok = yield* perform({ k: 'issueGroup', dev, rowOffset, rows: devRows });
    if (!ok) {
      for (const k of positions[dev] ?? []) mask[k] = false;
      yield { k: 'mark', what: 'issue-failed', detail: `dev${dev}` };
      continue;
    }
    issued[dev] = devRows;
  }
  if (issued.some((r) => r.length > 0)) {
    yield LOCK;
    // the groups in flight, for take (or for a teardown that must collect them)
    for (let dev = 0; dev < issued.length; dev++) st.groups[dev] = issued[dev] ?? [];
    yield UNLOCK;
  }
  return mask;
}

export function* take(st: TierState, layer: number): Gen<TakeResult> {
  yield LOCK;
  const claimed = st.groups.map((rows, dev) => ({ dev, rows })).filter((g) => g.rows.length > 0);
  let ok = true;
  for (const g of claimed) st.groups[g.dev] = [];
  yield UNLOCK;
  const outputs = new Map<number, ExpertOutput>();
  for (const g of claimed) {
    const outs = yield* perform({ k: 'takeGroup', dev: g.dev, rows: g.rows });
    if (outs === null) {
      ok = false;
      yield { k: 'mark', what: 'take-failed', detail: `dev${g.dev}` };
      continue;
    }
    g.rows.forEach((row, i) => {
      const out = outs[i];
      if (out !== undefined) outputs.set(row.eid, out);
    });
  }
  yield LOCK;
  st.issueOpen = false;
  yield BROADCAST_TAKE;
  yield UNLOCK;
  return { ok, outputs };
}
