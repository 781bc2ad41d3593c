/**
 * The canonical fold of a value into a state digest: addValue's fold (digest_hash.ts),
 * except that world-owned objects are folded by name (world_names.ts) and that maps and
 * sets whose keys are numbers or strings are folded in key order, so that the names their
 * entries introduce do not depend on the order the entries were inserted in.
 *
 * Other maps and sets stay order-free (the sum and xor of each entry's fold); a name an
 * entry introduces there is folded with its number, so the digest stays sound, though
 * two isomorphic states may then fold apart (a lost merge, never a wrong one).
 *
 * Invariant: equal values fold alike; values equal up to a renaming of world-owned
 * objects fold alike when the walk meets them in the same order.
 */
import { CONSTANT_FIELD, Hasher, fieldCode, stringCode } from './digest_hash.js';
import type { RecordNames } from './world_names.js';

const MAX_DEPTH = 14;
const entryHashers: Hasher[] = [];

/** Folds v into h (see the file's comment). */
export function addCanonical(h: Hasher, v: unknown, names: RecordNames, depth = 0): void {
  switch (typeof v) {
    case 'number':
      h.add(1).num(v);
      return;
    case 'boolean':
      h.add(v ? 2 : 3);
      return;
    case 'string':
      h.add(4).add(stringCode(v));
      return;
    case 'undefined':
      h.add(5);
      return;
    case 'function':
      return;
    case 'object':
      break;
    default:
      h.add(6).add(stringCode(String(v)));
      return;
  }
  if (v === null) {
    h.add(7);
    return;
  }
  if (depth > MAX_DEPTH) throw new Error('state digest: object graph deeper than expected (a cycle?)');
  if (names.fold(h, v, depth)) return;
  if (Array.isArray(v)) {
    h.add(8).add(v.length);
    for (const x of v) addCanonical(h, x, names, depth + 1);
    return;
  }
  if (ArrayBuffer.isView(v)) {
    const a = v as unknown as ArrayLike<number>;
    h.add(9).add(a.length);
    for (let i = 0; i < a.length; i++) h.num(a[i] ?? 0);
    return;
  }
  if (v instanceof Map || v instanceof Set) {
    addCollection(h, v, names, depth);
    return;
  }
  h.add(12);
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'function') continue;
    const code = fieldCode(k);
    if (code === CONSTANT_FIELD) continue;
    h.add(code);
    addCanonical(h, x, names, depth + 1);
  }
}

/** Names whose records fold canonically (the walker set once, world_names.ts). */
export function canonicalNames(names: RecordNames): RecordNames {
  names.walk = (h, x, d) => addCanonical(h, x, names, d);
  return names;
}

type Key = number | string;

function primitiveKeys(keys: Iterable<unknown>): Key[] | null {
  const out: Key[] = [];
  for (const k of keys) {
    if (typeof k !== 'number' && typeof k !== 'string') return null;
    out.push(k);
  }
  return out;
}

const byKey = (a: Key, b: Key): number =>
  typeof a === typeof b ? (a < b ? -1 : a > b ? 1 : 0) : typeof a === 'number' ? -1 : 1;

function addCollection(h: Hasher, v: Map<unknown, unknown> | Set<unknown>, names: RecordNames, depth: number): void {
  const isMap = v instanceof Map;
  const keys = primitiveKeys(v.keys());
  if (keys !== null) {
    keys.sort(byKey);
    h.add(isMap ? 21 : 22).add(keys.length);
    for (const k of keys) {
      addCanonical(h, k, names, depth + 1);
      if (isMap) addCanonical(h, (v as Map<unknown, unknown>).get(k), names, depth + 1);
    }
    return;
  }
  let sum = 0;
  let xor = 0;
  let eh = entryHashers[depth];
  if (eh === undefined) {
    eh = new Hasher();
    entryHashers[depth] = eh;
  }
  for (const [key, value] of isMap ? v : [...v].map((x) => [x, undefined] as const)) {
    eh.reset();
    addCanonical(eh, key, names, depth + 2);
    if (isMap) addCanonical(eh, value, names, depth + 2);
    const d = eh.digest();
    sum = (sum + (d % 0x100000000)) % 0x100000000;
    xor ^= Math.floor(d / 0x800);
  }
  h.add(isMap ? 10 : 11)
    .add(v.size)
    .add(sum)
    .add(xor);
}
