/**
 * The dense trunk's entry points (PROTOCOL.md, "Dense residents", "Lifecycle gate"):
 * admitted through the gate's trunk door, at LIVE and at DEAD alike, since the trunk
 * works with the expert tier never started.
 *
 *  - trunk_place: with the expert tier DEAD, the engine places its trunk itself: the
 *    placer of init (trunk_place.ts) over the configured budgets (or free memory minus
 *    the reserve), uploads outside gmx while it holds its gate slot, and the placed
 *    matrices kept in the gate (`deadTrunk`). A shutdown that finds DEAD frees them (and
 *    waits for a placement under way); an init frees them before it places its own. At
 *    LIVE the tier's init placed the trunk: it does nothing.
 *  - dense_matmul: one GEMV of trunk matrix `index`, on its device when it is resident
 *    (true), else the engine computes it on the CPU (false). At DEAD it reads the gate's
 *    trunk under gmx; at LIVE the tier's, under mx. It may run while a group is in flight
 *    on the same device (the engine computes attention inside the group's window): it
 *    uses the dense path's own device buffers, never the group's (the b86e55e defect).
 *    Its gate slot is held while it reads its tensor outside the locks, so teardown
 *    frees the trunk only once no GEMV reads it (an ungated GEMV let teardown free its
 *    tensor under it: defect (e); reading the handle outside any count let a shutdown
 *    free it, properties/replays/dense-gemv-after-shutdown.json).
 */
import { perform, type Gen } from '../ops.js';
import { admitsLocked, BROADCAST_GCV, GLOCK, GUNLOCK, leave } from './gate.js';
import type { DenseResident, TierState } from './state.js';
import { LOCK, UNLOCK } from './sync.js';
import { roomiestDevice, trunkCharge, trunkOrder } from './trunk_place.js';

export function* trunkPlace(st: TierState): Gen<number> {
  const g = st.gate;
  yield GLOCK;
  // one placement at a time, and only over an empty gate trunk
  const mine = admitsLocked(g, 'trunk') && g.state === 'DEAD' && !g.trunkBusy && g.deadTrunk.every((d) => d === null);
  if (mine) {
    g.live++;
    g.trunkBusy = true;
  }
  yield GUNLOCK;
  if (!mine) return 0;
  const placed = yield* placeTrunk(st);
  yield GLOCK;
  for (const p of placed) g.deadTrunk[p.index] = p.at;
  g.trunkBusy = false;
  g.live--;
  if (g.live === 0 && g.wantX > 0) yield BROADCAST_GCV;
  yield GUNLOCK;
  return placed.length;
}

/** The placer of init over the configured budgets, with no expert charged. */
function* placeTrunk(st: TierState): Gen<{ index: number; at: DenseResident }[]> {
  const budget: number[] = [];
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const want = st.cfg.budgetBytes[dev] ?? 0;
    if (want === 'auto') {
      const info = yield* perform({ k: 'memInfo', dev });
      budget.push(Math.max(0, (info?.free ?? 0) - st.cfg.reserveBytes));
    } else {
      budget.push(Math.max(0, want));
    }
  }
  const used = budget.map(() => 0);
  const placed: { index: number; at: DenseResident }[] = [];
  for (const index of trunkOrder(st.cfg.trunk)) {
    const offer = st.cfg.trunk[index];
    if (offer === undefined) continue;
    const dev = roomiestDevice(budget, used, trunkCharge(offer));
    if (dev < 0) continue;
    const tensor = yield* perform({
      k: 'uploadDense',
      dev,
      index,
      weightBytes: offer.weightBytes,
      scaleBytes: offer.scaleBytes,
    });
    if (tensor === null) continue;
    used[dev] = (used[dev] ?? 0) + trunkCharge(offer);
    placed.push({ index, at: { dev, tensor } });
  }
  return placed;
}

export function* denseMatmul(st: TierState, index: number): Gen<boolean> {
  const g = st.gate;
  yield GLOCK;
  const admitted = admitsLocked(g, 'trunk');
  const dead = g.state === 'DEAD';
  let resident: DenseResident | null = null;
  if (admitted) {
    g.live++;
    if (dead) resident = g.deadTrunk[index] ?? null;
  }
  yield GUNLOCK;
  if (!admitted) return false;
  if (!dead) {
    yield LOCK;
    resident = st.stop ? null : (st.dense[index] ?? null);
    yield UNLOCK;
  }
  if (resident !== null) {
    const dev = resident.dev;
    yield { k: 'denseGemv', dev, index, tensor: resident.tensor, inBuf: `dense_in${dev}`, outBuf: `dense_out${dev}` };
  }
  yield* leave(g);
  return resident !== null;
}
