/**
 * init (PROTOCOL.md): check the configuration, then in stages allocate the host arrays,
 * initialize the sync objects, set the budgets, load the heat file, place the dense
 * trunk (by value per byte, on the roomiest device: trunk_place.ts) and start the
 * uploader.
 *
 * init holds the gate's exclusive section, admitted only from DEAD (gate.ts): a second
 * init while LIVE changes nothing and says so ('already'); one during a teardown or while
 * another init runs is refused ('busy'), never queued. Holding it, nobody else is inside
 * the tier, yet the tables are written under mx once it exists: the checkers and a
 * thread that was refused at the door may look at any time.
 *
 * Results, never exceptions: an impossible configuration, or a stage that fails, leaves
 * the tier off with a reason (the engine runs on the CPU) and nothing allocated: each
 * failure undoes every stage before it. init after shutdown starts afresh (new tables,
 * the heat the last run saved). A trunk the engine placed while the tier was DEAD is
 * freed first: this generation places its own (a tensor belongs to one generation).
 */
import { perform, type Gen, type HostArray, type InitResult } from '../ops.js';
import { MAX_GROUP_ROWS, RING_ENTRY_BYTES, SLOT_BYTES } from './config.js';
import { enterExclusive, leaveExclusive } from './gate.js';
import { decodeHeat } from './heat_file.js';
import { resetTables, type DenseResident, type TierState } from './state.js';
import { LOCK, UNLOCK } from './sync.js';
import { roomiestDevice, trunkCharge, trunkOrder } from './trunk_place.js';
import { uploaderThread } from './uploader.js';

/** The configurations the tier refuses, with the reason (null: acceptable). */
export function configProblem(st: TierState): string | null {
  const c = st.cfg;
  if (c.topk > MAX_GROUP_ROWS) return `topk ${c.topk} exceeds ${MAX_GROUP_ROWS} rows per group`;
  if (c.ramCapacity < c.experts && !c.streaming)
    return `RAM holds ${c.ramCapacity} of ${c.experts} experts per layer: full residency needs streaming mode`;
  if (c.expertFormat === 1 && c.groupSize !== 0)
    return `int8 experts are scaled per row, not in groups of ${c.groupSize}`;
  if (c.streaming && c.heatFile) return 'streaming mode has no heat-file warmstart';
  return null;
}

export function* init(st: TierState): Gen<InitResult> {
  const entry = yield* enterExclusive(st.gate, 'DEAD');
  if (!entry.admitted) return entry.found === 'LIVE' ? { state: 'already' } : { state: 'busy' };
  for (const d of entry.deadTrunk) yield { k: 'free', dev: d.dev, tensor: d.tensor };
  const result = yield* initExclusive(st);
  yield* leaveExclusive(st.gate, result.state === 'active' ? 'LIVE' : 'DEAD');
  return result;
}

function* initExclusive(st: TierState): Gen<InitResult> {
  const problem = configProblem(st);
  if (problem !== null) return { state: 'off', reason: problem };
  const cfg = st.cfg;
  const slots = yield* perform({ k: 'hostAlloc', what: 'slots', bytes: cfg.layers * cfg.experts * SLOT_BYTES });
  if (slots === null) return { state: 'off', reason: 'cannot allocate the slot table' };
  const ring = yield* perform({ k: 'hostAlloc', what: 'ring', bytes: cfg.ringCapacity * RING_ENTRY_BYTES });
  if (ring === null) return yield* rollback([slots], false, 'cannot allocate the upload ring');
  if (!(yield* perform({ k: 'syncInit' })))
    return yield* rollback([slots, ring], false, 'cannot initialize the mutex and condition variables');
  yield LOCK;
  resetTables(st);
  st.hostArrays = [slots, ring];
  yield* setBudgetsLocked(st);
  if (cfg.heatFile) yield* loadHeatLocked(st);
  yield* placeDenseLocked(st);
  // active before the uploader runs: from its first step on, the state is shared
  st.active = true;
  const tid = yield* perform({ k: 'spawn', name: 'uploader', body: () => uploaderThread(st) });
  if (tid < 0) {
    st.active = false;
    const dense = takeDenseLocked(st);
    st.hostArrays = [];
    st.slots = [];
    yield UNLOCK;
    for (const d of dense) yield { k: 'free', dev: d.dev, tensor: d.tensor };
    return yield* rollback([slots, ring], true, 'cannot start the uploader thread');
  }
  st.uploaderTid = tid;
  yield UNLOCK;
  return { state: 'active' };
}

/** Undoes the host allocations (and the sync objects, once made) of a failed init. */
function* rollback(arrays: readonly HostArray[], synced: boolean, reason: string): Gen<InitResult> {
  for (const array of arrays) yield { k: 'hostFree', array };
  if (synced) yield { k: 'syncDestroy' };
  return { state: 'off', reason };
}

/** Per device: a number of bytes, or free memory minus the reserve. */
function* setBudgetsLocked(st: TierState): Gen<void> {
  for (let dev = 0; dev < st.cfg.devices; dev++) {
    const want = st.cfg.budgetBytes[dev] ?? 0;
    if (want === 'auto') {
      const info = yield* perform({ k: 'memInfo', dev });
      st.budget[dev] = Math.max(0, (info?.free ?? 0) - st.cfg.reserveBytes); // no answer: no room
    } else {
      st.budget[dev] = Math.max(0, want);
    }
  }
}

/** Halved on load, so last run's heat informs but does not dominate. */
function* loadHeatLocked(st: TierState): Gen<void> {
  const bytes = yield* perform({ k: 'readHeat' });
  const heat = decodeHeat(bytes, st.cfg.layers, st.cfg.experts);
  if (heat === null) {
    if (bytes !== null)
      yield { k: 'mark', what: 'heat-file-ignored', detail: `${bytes.byteLength} bytes, not this model's shape` };
    return;
  }
  for (const row of st.slots) for (const slot of row) slot.heat = (heat[slot.layer]?.[slot.eid] ?? 0) >>> 1;
}

/** The trunk is read every token: placed before the experts (trunk_place.ts). */
function* placeDenseLocked(st: TierState): Gen<void> {
  for (const index of trunkOrder(st.cfg.trunk)) {
    const offer = st.cfg.trunk[index];
    if (offer === undefined) continue;
    const charge = trunkCharge(offer);
    const dev = roomiestDevice(st.budget, st.used, charge);
    if (dev < 0) continue; // fits nowhere: computed on the CPU
    const tensor = yield* perform({
      k: 'uploadDense',
      dev,
      index,
      weightBytes: offer.weightBytes,
      scaleBytes: offer.scaleBytes,
    });
    if (tensor === null) continue;
    st.dense[index] = { dev, tensor };
    st.used[dev] = (st.used[dev] ?? 0) + charge;
  }
}

/** Takes the trunk out of the tables (mx held), its charges given back: the caller frees it. */
export function takeDenseLocked(st: TierState): DenseResident[] {
  const out: DenseResident[] = [];
  st.dense.forEach((d, index) => {
    const offer = st.cfg.trunk[index];
    if (d === null || offer === undefined) return;
    out.push(d);
    st.dense[index] = null;
    st.used[d.dev] = (st.used[d.dev] ?? 0) - trunkCharge(offer);
  });
  return out;
}
