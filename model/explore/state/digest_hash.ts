/**
 * Hashing of run state into 53-bit digests: two 32-bit mixing lanes (Hasher), and a
 * reflective fold of any value (addValue): numbers, strings, arrays in order, maps and
 * sets order-free, objects by their own fields, functions and the constant inputs
 * (`scenario`, `cfg`, the fault injector's `faultPlan`: the same in every run) left out.
 *
 * Invariant: equal values fold alike; the traversal order is the value's own (fields in
 * creation order, arrays by index), never the heap's.
 */
/** Two 32-bit FNV-1a-style lanes over numbers, folded into one safe integer. */
export class Hasher {
  private a = 0x811c9dc5;
  private b = 0x01000193;

  add(x: number): this {
    const v = x | 0;
    this.a = Math.imul(this.a ^ v, 0x01000193);
    this.b = Math.imul(this.b ^ (v + 0x9e3779b9), 0x5bd1e995);
    this.b ^= this.b >>> 15;
    return this;
  }

  /** a number that need not be a 32-bit integer (bytes, fractions) */
  num(x: number): this {
    if (Number.isInteger(x) && Math.abs(x) < 0x80000000) return this.add(x);
    return this.add(x % 0x100000000)
      .add(Math.floor(x / 0x100000000))
      .add(Math.round((x % 1) * 1e9));
  }

  bool(x: boolean): this {
    return this.add(x ? 1 : 0);
  }

  /** back to a fresh hasher (a map's entries are each hashed alone, by one hasher per depth) */
  reset(): this {
    this.a = 0x811c9dc5;
    this.b = 0x01000193;
    return this;
  }

  digest(): number {
    return (this.a >>> 0) * 0x200000 + ((this.b >>> 0) & 0x1fffff);
  }
}

/** fields holding a run's constant inputs: the same in every run, never written during one */
export const CONSTANT_INPUTS: ReadonlySet<string> = new Set(['scenario', 'cfg', 'faultPlan']);
const MAX_DEPTH = 12;
const stringCodes = new Map<string, number>();
/** the hasher of a map's or set's entries at each depth (entries nest: one per depth) */
const entryHashers: Hasher[] = [];

/** a string's 32-bit FNV-1a code (cached: field names repeat) */
export function stringCode(s: string): number {
  let c = stringCodes.get(s);
  if (c === undefined) {
    c = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) c = Math.imul(c ^ s.charCodeAt(i), 0x01000193);
    if (stringCodes.size < 100_000) stringCodes.set(s, c);
  }
  return c;
}

/** what fieldCode gives a constant input's field (no 32-bit code is this) */
export const CONSTANT_FIELD = 2 ** 40;
/** a dictionary, not a Map: a keyed load of an internalized name is the cheaper probe */
const fieldCodes: Record<string, number> = Object.create(null) as Record<string, number>;
let fieldCodeCount = 0;

/**
 * A field name's code, or CONSTANT_FIELD for a constant input's: one lookup where a fold
 * made two (the constant inputs, then the code), for every field of every digest.
 */
export function fieldCode(k: string): number {
  let c = fieldCodes[k];
  if (c === undefined) {
    c = CONSTANT_INPUTS.has(k) ? CONSTANT_FIELD : stringCode(k);
    if (fieldCodeCount < 100_000) {
      fieldCodes[k] = c;
      fieldCodeCount++;
    }
  }
  return c;
}

/** Folds any value into h: numbers, strings, arrays in order, maps and sets order-free, objects by own fields. */
export function addValue(h: Hasher, v: unknown, depth = 0): void {
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
  if (Array.isArray(v)) {
    h.add(8).add(v.length);
    for (const x of v) addValue(h, x, depth + 1);
    return;
  }
  if (ArrayBuffer.isView(v)) {
    const a = v as unknown as ArrayLike<number>;
    h.add(9).add(a.length);
    for (let i = 0; i < a.length; i++) h.num(a[i] ?? 0);
    return;
  }
  if (v instanceof Map || v instanceof Set) {
    addEntries(h, v, depth);
    return;
  }
  h.add(12);
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const code = fieldCode(k);
    if (code === CONSTANT_FIELD) continue;
    const x = o[k];
    if (typeof x === 'function') continue;
    h.add(code);
    addValue(h, x, depth + 1);
  }
}

/**
 * Order-free: the sum and the xor of each entry's own digest (a map's entry hashed as the
 * array [key, value] is, without making one).
 */
function addEntries(h: Hasher, v: Map<unknown, unknown> | Set<unknown>, depth: number): void {
  let sum = 0;
  let xor = 0;
  let eh = entryHashers[depth];
  if (eh === undefined) {
    eh = new Hasher();
    entryHashers[depth] = eh;
  }
  // loops, not forEach with a closure: this runs for every map of every digest
  if (v instanceof Map) {
    for (const [key, value] of v) {
      eh.reset().add(8).add(2);
      addValue(eh, key, depth + 2);
      addValue(eh, value, depth + 2);
      const d = eh.digest();
      sum = (sum + (d % 0x100000000)) % 0x100000000;
      xor ^= Math.floor(d / 0x800);
    }
  } else {
    for (const value of v) {
      eh.reset();
      addValue(eh, value, depth + 1);
      const d = eh.digest();
      sum = (sum + (d % 0x100000000)) % 0x100000000;
      xor ^= Math.floor(d / 0x800);
    }
  }
  h.add(v instanceof Map ? 10 : 11)
    .add(v.size)
    .add(sum)
    .add(xor);
}

/** The digest of one value on its own (an op's result, the tier's state). */
export function valueDigest(v: unknown): number {
  const h = new Hasher();
  addValue(h, v);
  return h.digest();
}
