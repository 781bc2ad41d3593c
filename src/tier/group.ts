/**
 * issue, take and the dense GEMV: the decode thread's device groups (PROTOCOL.md,
 * "issue", "take").
 *
 * issue builds, under the lock, one group per device from the routed experts that are
 * resident (at most MAX_GROUP_ROWS rows each), sets `issue_open`, counts hits and misses,
 * and runs the LFRU tick on layer 0. The tick runs after the group is built, so a victim
 * may be in the group being issued: that is exactly why the uploader waits for
 * `issue_open` to clear before it frees a victim. Outside the lock, each device's input
 * goes into that device's own block of the input buffer (stride MAX_GROUP_ROWS rows),
 * and the group is issued asynchronously; a device whose issue fails hands its experts
 * back to the CPU (their mask bits are cleared). The mask is exactly the routed experts
 * resident on a device whose issue succeeded.
 *
 * take drains in two phases: under the lock it claims the open groups, outside it
 * collects each device's outputs, then under the lock it clears `issue_open` and
 * broadcasts. A failed collection leaves that device's outputs out (they are lost for
 * this token: the engine computes them on the CPU) and take reports it; so does a take
 * whose groups a shutdown already drained. Every device is still drained.
 */
import { perform, type ExpertOutput, type Gen, type GroupRow, type RouteInfo, type TakeResult } from '../ops.js';
import { MAX_GROUP_ROWS } from './config.js';
import { lfruTickLocked } from './lfru.js';
import { BROADCAST_TAKE, LOCK, UNLOCK } from './sync.js';
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
  if (st.active && !st.stop) {
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
    // issuing outside the lock: a shutdown must wait until the groups are published
    if (rows.some((r) => r.length > 0)) st.groupsBusy = true;
    if (route.layer === 0) yield* lfruTickLocked(st);
  }
  const busy = st.groupsBusy;
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
  if (busy) {
    yield LOCK;
    // the groups in flight, for take (or for a shutdown that must collect them)
    for (let dev = 0; dev < issued.length; dev++) st.groups[dev] = issued[dev] ?? [];
    st.groupsBusy = false;
    if (st.stop) yield BROADCAST_TAKE;
    yield UNLOCK;
  }
  return mask;
}

export function* take(st: TierState, layer: number): Gen<TakeResult> {
  yield LOCK;
  const claimed = st.groups.map((rows, dev) => ({ dev, rows })).filter((g) => g.rows.length > 0);
  let ok = !st.groupsDrained;
  st.groupsDrained = false;
  for (const g of claimed) st.groups[g.dev] = [];
  if (claimed.length > 0) st.groupsBusy = true;
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
  st.groupsBusy = false;
  st.issueOpen = false;
  yield BROADCAST_TAKE;
  yield UNLOCK;
  return { ok, outputs };
}

/**
 * One GEMV of trunk matrix `index`: on its device when it is resident (true), else the
 * engine computes it on the CPU (false). It may run while a group is in flight on the
 * same device (the engine computes attention inside the group's window): it uses the
 * dense path's own device buffers, never the group's input/output (the b86e55e defect).
 * It is counted while it reads its tensor outside the lock, and shutdown releases the
 * trunk only once no GEMV reads it; once stopping, every GEMV goes to the CPU. (Reading
 * the handle without the count let a concurrent shutdown free it under the GEMV: found
 * by the properties, kept in properties/replays/dense-gemv-after-shutdown.json.)
 */
export function* denseMatmul(st: TierState, index: number): Gen<boolean> {
  yield LOCK;
  const resident = st.active && !st.stop ? (st.dense[index] ?? null) : null;
  if (resident !== null) st.denseInflight++;
  yield UNLOCK;
  if (resident !== null) {
    const dev = resident.dev;
    yield { k: 'denseGemv', dev, index, tensor: resident.tensor, inBuf: `dense_in${dev}`, outBuf: `dense_out${dev}` };
    yield LOCK;
    st.denseInflight--;
    if (st.stop) yield BROADCAST_TAKE;
    yield UNLOCK;
  }
  return resident !== null;
}
