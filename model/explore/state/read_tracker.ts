/**
 * Read tracking of the tier's shared state, for thread positions (thread_position.ts):
 * the threads get a proxy of the tier's state in place of the state itself, and every
 * value a thread reads through it is reported as (where it was read, what it was).
 *
 * Why: a thread's code is deterministic, so its locals after a step are a function of
 * what it observed: the results the world sent back and the values it read from shared
 * state. Hashing exactly those observations gives a position that equal histories share
 * and that tells apart any two threads whose locals may differ, whether or not the reads
 * happen under mx (a racy mutant is covered too). Hashing the whole guarded state at every
 * acquisition would also be sound, but it splits states on things the thread never
 * looked at.
 *
 * What is reported: a read of a number, boolean, string or null as its value; of an
 * object of the tier's state as a proxy of it, named by the path it was reached by
 * (so later reads through it are tracked and named); of a world-owned object (a handle
 * the world handed out, `worldOwned`) as the object itself, digested by content. Writes
 * go straight to the real state and mark it changed (for the digest's cache). The
 * checkers keep reading the real state, untracked. `cfg` (constant) is returned as is.
 *
 * Invariant: the proxy never changes what the code sees; values read and written are
 * the real ones (functions and symbols pass through untouched).
 */
import { valueDigest } from './digest_hash.js';

export interface ReadSink {
  /** thread code read `value` at the place hashed as `where` */
  read(where: number, value: number): void;
  /** thread code changed the shared state */
  wrote(): void;
}

const keyCodes = new Map<string, number>();
function keyCode(k: string): number {
  let c = keyCodes.get(k);
  if (c === undefined) {
    c = 0x811c9dc5;
    for (let i = 0; i < k.length; i++) c = Math.imul(c ^ k.charCodeAt(i), 0x01000193);
    if (keyCodes.size < 10_000) keyCodes.set(k, c);
  }
  return c;
}

function child(where: number, key: string): number {
  return Math.imul(where ^ keyCode(key), 0x5bd1e995) ^ (where >>> 13);
}

const UNTRACKED = new Set(['cfg']);

/** A proxy of `root` that reports every read to `sink`; world-owned objects come back unwrapped. */
export function trackReads<T extends object>(root: T, sink: ReadSink, worldOwned: WeakSet<object>): T {
  const proxies = new WeakMap<object, { proxy: object; where: number }>();
  const wrap = (target: object, where: number): object => {
    const known = proxies.get(target);
    if (known !== undefined) return known.proxy;
    const proxy = new Proxy(target, {
      get(t, key, receiver) {
        const v: unknown = Reflect.get(t, key, receiver);
        if (typeof key === 'symbol' || typeof v === 'function') return v;
        if (UNTRACKED.has(key)) return v;
        const at = child(where, key);
        if (v === null || typeof v !== 'object') {
          sink.read(at, typeof v === 'number' ? v | 0 : valueDigest(v));
          return v;
        }
        if (worldOwned.has(v)) {
          sink.read(at, valueDigest(v));
          return v;
        }
        const inner = proxies.get(v);
        const named = inner !== undefined ? inner.where : at;
        sink.read(at, named);
        return wrap(v, named);
      },
      set(t, key, value, receiver) {
        sink.wrote();
        return Reflect.set(t, key, unwrap(value), receiver);
      },
      deleteProperty(t, key) {
        sink.wrote();
        return Reflect.deleteProperty(t, key);
      },
    });
    proxies.set(target, { proxy, where });
    originals.set(proxy, target);
    return proxy;
  };
  const originals = new WeakMap<object, object>();
  // a proxy stored into the state is stored as the object it stands for
  const unwrap = (v: unknown): unknown => (v !== null && typeof v === 'object' ? (originals.get(v) ?? v) : v);
  return wrap(root, 0x2545f491) as T;
}
