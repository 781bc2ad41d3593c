/**
 * issue and take: the decode thread's expert groups (PROTOCOL.md, "issue", "take").
 *
 * issue builds, under the lock, one group per device from the routed experts that are
 * resident (at most MAX_GROUP_ROWS rows each), sets `issue_open`, and runs the LFRU tick
 * on layer 0. The tick runs after the group is built, so a victim may be in the group
 * being issued: that is exactly why the uploader waits for `issue_open` to clear before
 * it frees a victim. Outside the lock, each device's input goes into that device's own
 * block of the input buffer (stride MAX_GROUP_ROWS rows), and the group is issued
 * asynchronously; a device whose issue fails hands its experts back to the CPU.
 *
 * take collects each device's outputs; a failed collection returns nothing for that
 * device (the engine recomputes those experts on the CPU). Then, under the lock,
 * `issue_open = 0` and broadcast. The per-device group lists are owned by the decode
 * thread (only issue and take touch them).
 */
import { perform, type ExpertOutput, type Gen, type GroupRow, type RouteInfo } from '../ops.js';
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
  yield { k: 'call', fn: 'issue', arg: `t${route.token} L${route.layer}` };
  const mask = new Array<boolean>(route.eids.length).fill(false);
  const rows: GroupRow[][] = Array.from({ length: st.cfg.devices }, () => []);
  const positions: number[][] = Array.from({ length: st.cfg.devices }, () => []);
  yield LOCK;
  if (!st.stop) {
    st.issueOpen = true;
    for (let k = 0; k < route.eids.length; k++) {
      const eid = route.eids[k] ?? -1;
      const slot = slotOf(st, route.layer, eid);
      const devRows = rows[slot.home];
      const devPos = positions[slot.home];
      if (slot.resident && slot.tensors !== null && devRows !== undefined && devPos !== undefined && devRows.length < MAX_GROUP_ROWS) {
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

  for (let dev = 0; dev < st.cfg.devices; dev++) {
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
    st.groups[dev] = devRows;
  }
  yield { k: 'ret', fn: 'issue', value: mask.map((b) => (b ? '1' : '0')).join('') };
  return mask;
}

/** Outputs by expert id for every device whose group was collected. */
export function* take(st: TierState, layer: number): Gen<Map<number, ExpertOutput>> {
  yield { k: 'call', fn: 'take', arg: `L${layer}` };
  const outputs = new Map<number, ExpertOutput>();
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const rows = st.groups[dev] ?? [];
    if (rows.length === 0) continue;
    const outs = yield* perform({ k: 'takeGroup', dev, rows });
    if (outs === null) {
      yield { k: 'mark', what: 'take-failed', detail: `dev${dev}` };
    } else {
      rows.forEach((row, i) => {
        const out = outs[i];
        if (out !== undefined) outputs.set(row.eid, out);
      });
    }
    st.groups[dev] = [];
  }
  yield LOCK;
  st.issueOpen = false;
  yield BROADCAST_TAKE;
  yield UNLOCK;
  yield { k: 'ret', fn: 'take', value: String(outputs.size) };
  return outputs;
}

/**
 * A resident dense GEMV while a group is in flight: it uses the dense path's own device
 * buffers, never the group's input/output (the b86e55e defect). It runs only inside an
 * open group's window, because shutdown releases the dense tensors only once no group
 * is open; outside that window the engine computes the matrix on the CPU. (Reading the
 * handle without that rule let a concurrent shutdown free it under the GEMV: found by
 * the properties, kept in properties/replays/dense-gemv-after-shutdown.json.)
 */
export function* denseMatmul(st: TierState, dev: number): Gen<boolean> {
  yield LOCK;
  const tensor = st.issueOpen ? (st.dense[dev] ?? null) : null;
  yield UNLOCK;
  if (tensor === null) return false;
  yield { k: 'denseGemv', dev, tensor, inBuf: `dense_in${dev}`, outBuf: `dense_out${dev}` };
  return true;
}
