/**
 * The simulated world's part of a canonical state digest: every own field, read
 * reflectively (a field added later is covered), with world-owned records named
 * (world_names.ts), except what no future step and no check can observe:
 *
 *  - the ledger's record lists (`tensors`, `staging`, `hostArrays`) are append-only
 *    histories in allocation order; nothing reads them but the digest (checks read the
 *    live counts and bytes, fields of their own). They fold as the multiset of their live
 *    records, each by the name it got where the state holds it, or by its content when
 *    nothing holds it (a leak: still counted). `ledgerRecords` folds them last, once every
 *    holder has named its records; a dead record is folded where it is held, if anywhere;
 *  - the RAM pool: what can be observed of it is the engine's current copy of each
 *    expert (`table`, by key) and whether a reference someone holds is still valid (folded
 *    with the reference); its slot array, free list and live count (which slot a copy
 *    landed in, copies nobody holds) are not read by anything;
 *  - the fault injector: calls per site matter only while the plan still fails a later
 *    call there (then the count decides which); `injected` is read by nothing.
 *
 * Invariant: two worlds that differ only in what is listed above fold alike; a
 * difference in anything else (a live record's content, a held reference's validity, a
 * count of live tensors) folds apart. `test/explore/canonical_state.test.ts` checks both.
 */
import { FAULT_SITES, faultKey, type FaultSite } from '../../../src/engine/fault_sites.js';
import type { SimulatedWorld } from '../../sim_engine/sim_world.js';
import { CONSTANT_FIELD, Hasher, fieldCode } from './digest_hash.js';
import { addCanonical } from './canonical_value.js';
import type { RecordNames } from './world_names.js';

/** the ledger's append-only record lists */
const LEDGER_HISTORY: ReadonlySet<string> = new Set(['tensors', 'staging', 'hostArrays']);
/** the RAM pool's fields nothing observes (see the file's comment) */
const RAM_UNOBSERVED: ReadonlySet<string> = new Set(['slots', 'free', 'liveSlots']);

/** Folds the world, all but the ledger's record lists (ledgerRecords, last). */
export function addWorld(h: Hasher, world: SimulatedWorld, names: RecordNames): void {
  h.add(0x574f524c);
  eachField(world, (k, x) => {
    h.add(fieldCode(k));
    if (x === world.ledger) addFields(h, x, names, LEDGER_HISTORY);
    else if (x === world.ram) addRamPool(h, x, names);
    else if (x === world.faults) addFaults(h, world, names);
    else addCanonical(h, x, names, 1);
  });
}

/** The ledger's live records, as a multiset (after every holder named what it holds). */
export function addLedgerRecords(h: Hasher, world: SimulatedWorld, names: RecordNames): void {
  const L = world.ledger;
  for (const list of [L.tensors, L.staging, L.hostArrays] as const) {
    let sum = 0;
    let xor = 0;
    let live = 0;
    const eh = new Hasher();
    for (const r of list) {
      if (!r.alive) continue;
      live++;
      eh.reset();
      const name = names.nameOf(r);
      if (name !== undefined) eh.add(name);
      else names.foldUnnamed(eh, r, 1);
      const d = eh.digest();
      sum = (sum + (d % 0x100000000)) % 0x100000000;
      xor ^= Math.floor(d / 0x800);
    }
    h.add(live).add(sum).add(xor);
  }
}

function eachField(o: object, f: (k: string, x: unknown) => void): void {
  const rec = o as Record<string, unknown>;
  for (const k in rec) {
    if (fieldCode(k) === CONSTANT_FIELD) continue;
    const x = rec[k];
    if (typeof x !== 'function') f(k, x);
  }
}

function addFields(h: Hasher, o: unknown, names: RecordNames, skip: ReadonlySet<string>): void {
  if (o === null || typeof o !== 'object') {
    addCanonical(h, o, names, 1);
    return;
  }
  eachField(o, (k, x) => {
    if (skip.has(k)) return;
    h.add(fieldCode(k));
    addCanonical(h, x, names, 2);
  });
}

function addRamPool(h: Hasher, pool: unknown, names: RecordNames): void {
  if (pool === null || typeof pool !== 'object') {
    addCanonical(h, pool, names, 1);
    return;
  }
  const table = (pool as { table?: unknown }).table;
  // the current copies are references like any other: named, with their validity
  if (table instanceof Map) for (const ref of table.values()) if (typeof ref === 'object') names.owned.markRam(ref);
  addFields(h, pool, names, RAM_UNOBSERVED);
}

/** per site: the calls made, while the plan still fails a later call there; else -1 */
function addFaults(h: Hasher, world: SimulatedWorld, names: RecordNames): void {
  const plan = world.scenario.faults;
  eachField(world.faults, (k, x) => {
    if (k !== 'calls' || !(x instanceof Map)) {
      // `injected` is written and never read; anything else is folded as it is
      if (k !== 'injected') addCanonical(h.add(fieldCode(k)), x, names, 2);
      return;
    }
    h.add(fieldCode(k));
    const calls = x as Map<FaultSite, number>;
    for (const site of FAULT_SITES) {
      const n = calls.get(site) ?? 0;
      const later = plan[faultKey(site)].some((i) => i >= n);
      h.add(later ? n : -1);
    }
  });
}
