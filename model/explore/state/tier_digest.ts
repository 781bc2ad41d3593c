/**
 * The tier state's digest and the places of its objects, in one walk: the state digest
 * (subject.ts) hashes the tier's state and then names the objects the threads' locals
 * hold by where they sit in it (frames.ts), and both walks went over the same objects,
 * once each per digest.
 *
 * The digest is exactly valueDigest(st) (digest_hash.ts: the same folds in the same
 * order); a place is the hash of the first path to an object in a depth-first walk by
 * field name (arrays by index, not into Map or Set entries, no deeper than 8 fields, not
 * under `cfg`), an object met again keeping its first path.
 *
 * With `names` (world_names.ts) the fold is the canonical one (canonical_value.ts): the
 * world's records the tier holds (tensors, staging copies, RAM references, host arrays)
 * are folded by name, not by id; their places are recorded all the same.
 *
 * Invariant: digest and places equal those of the two walks done apart (test/explore/
 * tier_digest.test.ts compares them on states of real runs).
 */
import { CONSTANT_FIELD, Hasher, addValue, fieldCode, stringCode } from './digest_hash.js';
import { addCanonical } from './canonical_value.js';
import type { RecordNames } from './world_names.js';

/** fields whose objects get no place (the configuration: constant, never a thread's local) */
const PLACE_SKIP: ReadonlySet<string> = new Set(['cfg']);
const MAX_PLACE_DEPTH = 8;
const MAX_DEPTH = 12;
const ROOT_PLACE = 0x1b873593;

export interface TierDigest {
  readonly digest: number;
  readonly places: Map<object, number>;
}

export function tierDigest(st: object, names: RecordNames | null = null): TierDigest {
  const h = new Hasher();
  const places = new Map<object, number>();
  addPlaced(h, st, 0, ROOT_PLACE, true, { places, names });
  return { digest: h.digest(), places };
}

interface Walk {
  readonly places: Map<object, number>;
  readonly names: RecordNames | null;
}

/** addValue's fold of v (canonical with names), recording places while `record` holds */
function addPlaced(h: Hasher, v: unknown, depth: number, where: number, recordHere: boolean, walk: Walk): void {
  const { places, names } = walk;
  if (v === null || typeof v !== 'object') {
    addValue(h, v, depth);
    return;
  }
  const record = recordHere && depth <= MAX_PLACE_DEPTH && !places.has(v);
  if (record) places.set(v, where);
  if (depth > MAX_DEPTH) throw new Error('state digest: object graph deeper than expected (a cycle?)');
  if (names?.fold(h, v, depth)) return;
  if (Array.isArray(v)) {
    h.add(8).add(v.length);
    for (let i = 0; i < v.length; i++) addPlaced(h, v[i], depth + 1, below(where, indexCode(i)), record, walk);
    return;
  }
  if (ArrayBuffer.isView(v) || v instanceof Map || v instanceof Set) {
    // nothing below gets a place: typed arrays hold numbers, entries are not fields
    if (names !== null) addCanonical(h, v, names, depth);
    else addValue(h, v, depth);
    return;
  }
  h.add(12);
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    const code = fieldCode(k);
    if (code === CONSTANT_FIELD) {
      if (record && !PLACE_SKIP.has(k)) placeOnly(x, depth + 1, below(where, stringCode(k)), places);
      continue;
    }
    if (typeof x === 'function') continue;
    h.add(code);
    addPlaced(h, x, depth + 1, below(where, code), record && !PLACE_SKIP.has(k), walk);
  }
}

/** the places under a field the digest leaves out (a constant input other than cfg) */
function placeOnly(v: unknown, depth: number, where: number, places: Map<object, number>): void {
  if (v === null || typeof v !== 'object' || places.has(v) || depth > MAX_PLACE_DEPTH) return;
  places.set(v, where);
  const rec = v as Record<string, unknown>;
  for (const k in rec) if (!PLACE_SKIP.has(k)) placeOnly(rec[k], depth + 1, below(where, stringCode(k)), places);
}

function below(where: number, keyCode: number): number {
  return Math.imul(where ^ keyCode, 0x5bd1e995) ^ (where >>> 13);
}

/** the code of an array index as a field name ("0", "1", ...), cached for small indices */
const indexCodes: number[] = [];
function indexCode(i: number): number {
  let c = indexCodes[i];
  if (c === undefined) {
    c = stringCode(String(i));
    if (i < 4096) indexCodes[i] = c;
  }
  return c;
}
