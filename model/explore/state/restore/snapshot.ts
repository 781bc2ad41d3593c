/**
 * A saved state of a run, written back in place: every object reachable from the roots
 * (the runtime, its threads and their generators, the tier, the world, the checkers, the
 * strategy's own run state) keeps its identity, and its contents return to what they
 * were when it was saved. A run can then go on from that point instead of replaying to
 * it from the start. Objects made after the save become unreachable when it is written
 * back: everything reachable then was reachable when it was saved.
 *
 * What is saved: own enumerable properties of objects, elements of arrays, entries of
 * Maps and Sets, the bytes of typed arrays, and a resumable generator's position and
 * variables (resumable_generator.ts saves them itself). Functions are values, never
 * looked into: a closure's variables are not saved, so state must not live in closures
 * (the checkers keep theirs in fields). `opaque` objects are kept by reference and not
 * looked into (the search's own tree), nor are a run's constant inputs (the scenario, the
 * tier's configuration, the fault plan: digest_hash.ts's CONSTANT_INPUTS, which no run
 * writes). Frozen objects cannot change and are only looked through. An instance of a
 * class with a method under SAVE (and one under RESTORE) saves itself: what it returns is
 * written back by RESTORE, and nothing in it is looked into (the happens-before order,
 * whose events never change once appended, saves a length instead of every event).
 *
 * Invariant: a state that cannot be saved (a native iterator or generator, a WeakMap, a
 * Promise held by the run) is a SnapshotError naming what was met, never a partial save.
 */
import { CONSTANT_INPUTS } from '../digest_hash.js';
import { ResumableGenerator } from './resumable_generator.js';

export class SnapshotError extends Error {}

export const SAVE = Symbol('tierlab.snapshot.save');
export const RESTORE = Symbol('tierlab.snapshot.restore');

/** An object that saves and writes back its own state (it holds no other run object). */
export interface SavesItself {
  [SAVE](): unknown;
  [RESTORE](saved: unknown): void;
}

const PLAIN = 0;
const ARRAY = 1;
const MAP = 2;
const SET = 3;
const BYTES = 4;
const GENERATOR = 5;
const ATOM = 6;
const SELF = 7;

/** how objects of a prototype are saved (found once per prototype) */
const kindOfProto = new Map<object | null, number>();

function kindOf(o: object): number {
  // most objects saved are arrays and plain objects: no lookup for those
  if (Array.isArray(o)) return ARRAY;
  const proto = Object.getPrototypeOf(o) as object | null;
  if (proto === Object.prototype) return PLAIN;
  let k = kindOfProto.get(proto);
  if (k === undefined) {
    k = classify(o);
    kindOfProto.set(proto, k);
  }
  return k;
}

function classify(o: object): number {
  if (typeof (o as Partial<SavesItself>)[SAVE] === 'function') return SELF;
  if (Array.isArray(o)) return ARRAY;
  if (o instanceof Map) return MAP;
  if (o instanceof Set) return SET;
  if (ArrayBuffer.isView(o)) {
    if (o instanceof DataView) throw new SnapshotError('a state holds a DataView');
    return BYTES;
  }
  if (o instanceof ResumableGenerator) return GENERATOR;
  // values that do not change, or whose contents no run reaches through
  if (o instanceof Date || o instanceof RegExp || o instanceof Error) return ATOM;
  if (o instanceof WeakMap || o instanceof WeakSet || o instanceof WeakRef || o instanceof Promise)
    throw new SnapshotError(`a state holds a ${o.constructor.name}, whose contents cannot be saved`);
  const tag = (o as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
  if (typeof tag === 'string' && (tag.endsWith('Iterator') || tag === 'Generator'))
    throw new SnapshotError(`a state holds a native ${tag}, whose position cannot be saved`);
  return PLAIN;
}

/**
 * One flat record per save: object i's values are `values[starts[i] .. starts[i + 1])`,
 * with its field names in `names[i]` (plain objects, whose one value is the list
 * Object.values gave, in the order of the names). A save walks about
 * 240 objects and a search makes thousands of saves and restores, so the layout avoids
 * an array per object and the walk checks each object once (`seen` holds the opaque
 * objects from the start).
 */
export class Snapshot {
  private constructor(
    private readonly objects: readonly object[],
    private readonly kinds: readonly number[],
    private readonly starts: readonly number[],
    private readonly values: readonly unknown[],
    private readonly names: readonly (readonly string[] | null)[],
  ) {}

  /** objects saved (a size, for reports) */
  get size(): number {
    return this.objects.length;
  }

  static take(roots: readonly object[], opaque: ReadonlySet<object>): Snapshot {
    const objects: object[] = [];
    const kinds: number[] = [];
    const starts: number[] = [];
    const values: unknown[] = [];
    const names: (readonly string[] | null)[] = [];
    const seen = new Set<object>(opaque);
    const todo: object[] = [];
    const reach = (v: unknown): void => {
      if (v !== null && typeof v === 'object' && !seen.has(v)) {
        seen.add(v);
        todo.push(v);
      }
    };
    for (const r of roots) reach(r);
    for (let o = todo.pop(); o !== undefined; o = todo.pop()) {
      const kind = kindOf(o);
      if (kind === ATOM) continue;
      const start = values.length;
      const keys = saveContents(o, kind, values, reach);
      // a frozen object cannot change: what it holds is saved, not the object itself
      if (kind !== BYTES && kind !== SELF && Object.isFrozen(o)) {
        values.length = start;
        continue;
      }
      objects.push(o);
      kinds.push(kind);
      starts.push(start);
      names.push(keys);
    }
    starts.push(values.length);
    return new Snapshot(objects, kinds, starts, values, names);
  }

  /** Writes every saved object's contents back into it (an object as it was saved is only read). */
  restore(): void {
    const { objects, kinds, starts, values, names } = this;
    for (let i = 0; i < objects.length; i++)
      writeBack(
        objects[i] as object,
        kinds[i] as number,
        values,
        starts[i] as number,
        starts[i + 1] as number,
        names[i] ?? null,
      );
  }
}

/** Appends o's contents to `out`, passing each value a later save must look into to `reach`. */
function saveContents(o: object, kind: number, out: unknown[], reach: (v: unknown) => void): readonly string[] | null {
  switch (kind) {
    case ARRAY: {
      const a = o as unknown[];
      for (let i = 0; i < a.length; i++) {
        const v = a[i];
        out.push(v);
        reach(v);
      }
      return null;
    }
    case MAP:
      for (const [k, v] of o as Map<unknown, unknown>) {
        out.push(k, v);
        reach(k);
        reach(v);
      }
      return null;
    case SET:
      for (const v of o as Set<unknown>) {
        out.push(v);
        reach(v);
      }
      return null;
    case BYTES:
      out.push((o as Uint8Array).slice());
      return null;
    case SELF:
      out.push((o as SavesItself)[SAVE]());
      return null;
    case GENERATOR:
      (o as ResumableGenerator).saveTo(out, reach);
      return null;
    default: {
      // two builtins, not a keyed load per field (the objects saved have many shapes)
      // the values array itself is the record (one slot), never written after
      const keys = Object.keys(o);
      const vals = Object.values(o);
      out.push(vals);
      for (let i = 0; i < keys.length; i++) {
        const v = vals[i];
        // a primitive needs no look (most fields); a constant input is never looked into
        if (v !== null && typeof v === 'object' && !CONSTANT_INPUTS.has(keys[i] as string)) reach(v);
      }
      return keys;
    }
  }
}

function writeBack(
  o: object,
  kind: number,
  saved: readonly unknown[],
  start: number,
  end: number,
  keys: readonly string[] | null,
): void {
  switch (kind) {
    case ARRAY: {
      // compared first, as plain objects are (writeFields): most are as they were saved
      const a = o as unknown[];
      if (a.length !== end - start) a.length = end - start;
      let i = start;
      while (i < end && Object.is(a[i - start], saved[i])) i++;
      for (; i < end; i++) a[i - start] = saved[i];
      return;
    }
    case MAP: {
      const m = o as Map<unknown, unknown>;
      if (sameEntries(m, saved, start, end)) return;
      m.clear();
      for (let i = start; i < end; i += 2) m.set(saved[i], saved[i + 1]);
      return;
    }
    case SET: {
      const s = o as Set<unknown>;
      if (sameEntries(s, saved, start, end)) return;
      s.clear();
      for (let i = start; i < end; i++) s.add(saved[i]);
      return;
    }
    case BYTES:
      (o as Uint8Array).set(saved[start] as Uint8Array);
      return;
    case SELF:
      (o as SavesItself)[RESTORE](saved[start]);
      return;
    case GENERATOR:
      (o as ResumableGenerator).restoreFrom(saved, start, end);
      return;
    default:
      writeFields(o as Record<string, unknown>, saved[start] as readonly unknown[], keys ?? []);
  }
}

/**
 * A plain object's fields written back. Most objects of a state are as they were saved
 * (nine in ten, measured on the growth table's searches), so they are compared first,
 * by two builtins rather than a keyed load per field and by Object.is (-0 is not 0),
 * and left alone when equal; fields added since the save are deleted (Object.keys is
 * the one list of them), also when as many were deleted.
 */
function writeFields(rec: Record<string, unknown>, saved: readonly unknown[], list: readonly string[]): void {
  const now = Object.keys(rec);
  let sameKeys = now.length === list.length;
  for (let i = 0; sameKeys && i < list.length; i++) sameKeys = now[i] === list[i];
  if (sameKeys) {
    const vals = Object.values(rec);
    let i = 0;
    while (i < list.length && Object.is(vals[i], saved[i])) i++;
    if (i === list.length) return;
  } else {
    for (const k of now) if (!list.includes(k)) delete rec[k];
  }
  for (let i = 0; i < list.length; i++) rec[list[i] as string] = saved[i];
}

/** whether m holds exactly the saved entries, in the saved order (then nothing is rebuilt) */
function sameEntries(
  m: Map<unknown, unknown> | Set<unknown>,
  saved: readonly unknown[],
  start: number,
  end: number,
): boolean {
  if (m instanceof Set) {
    if (m.size !== end - start) return false;
    let i = start;
    for (const v of m) if (!Object.is(v, saved[i++])) return false;
    return true;
  }
  if (m.size * 2 !== end - start) return false;
  let i = start;
  for (const [k, v] of m) {
    if (!Object.is(k, saved[i]) || !Object.is(v, saved[i + 1])) return false;
    i += 2;
  }
  return true;
}
