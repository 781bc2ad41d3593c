/**
 * A saved state of a run, written back in place: every object reachable from the roots
 * (the runtime, its threads and their generators, the tier, the world, the checkers, the
 * strategy's own run state) keeps its identity, and its contents return to what they
 * were when it was saved. A run can then go on from that point instead of replaying to
 * it from the start. Objects made after the save become unreachable when it is written
 * back: everything reachable then was reachable when it was saved.
 *
 * What is saved: own enumerable properties of objects, elements of arrays, entries of
 * Maps and Sets, the bytes of typed arrays, and a resumable generator's variables
 * (resumable_generator.ts). Functions are values, never looked into: a closure's
 * variables are not saved, so state must not live in closures (the checkers keep theirs
 * in fields). `opaque` objects are kept by reference and not looked into (the search's
 * own tree), nor are a run's constant inputs (the scenario, the tier's configuration, the
 * fault plan: digest_hash.ts's CONSTANT_INPUTS, which no run writes). Frozen objects
 * cannot change and are only looked through. An object with
 * a method under SAVE (and one under RESTORE) saves itself: what it returns is written
 * back by RESTORE, and nothing in it is looked into (the happens-before order, whose
 * events never change once appended, saves a length instead of every event).
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
  const proto = Object.getPrototypeOf(o) as object | null;
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

export class Snapshot {
  private constructor(
    private readonly objects: readonly object[],
    private readonly kinds: readonly number[],
    /** per object, what it held: values (and keys, for plain objects) */
    private readonly contents: readonly unknown[][],
    private readonly keys: readonly (readonly string[] | null)[],
  ) {}

  /** objects saved (a size, for reports) */
  get size(): number {
    return this.objects.length;
  }

  static take(roots: readonly object[], opaque: ReadonlySet<object>): Snapshot {
    const objects: object[] = [];
    const kinds: number[] = [];
    const contents: unknown[][] = [];
    const keys: (readonly string[] | null)[] = [];
    const seen = new Set<object>();
    const todo: object[] = [...roots];
    const reach = (v: unknown): void => {
      if (v !== null && typeof v === 'object' && !seen.has(v) && !opaque.has(v)) todo.push(v);
    };
    for (let o = todo.pop(); o !== undefined; o = todo.pop()) {
      if (seen.has(o)) continue;
      seen.add(o);
      const kind = kindOf(o);
      if (kind === ATOM) continue;
      const [saved, names] = contentsOf(o, kind);
      if (kind !== BYTES && kind !== SELF) {
        for (let i = 0; i < saved.length; i++) {
          const name = names?.[i];
          if (name === undefined || !CONSTANT_INPUTS.has(name)) reach(saved[i]);
        }
        if (Object.isFrozen(o)) continue;
      }
      objects.push(o);
      kinds.push(kind);
      contents.push(saved);
      keys.push(names);
    }
    return new Snapshot(objects, kinds, contents, keys);
  }

  /** Writes every saved object's contents back into it. */
  restore(): void {
    for (let i = 0; i < this.objects.length; i++) {
      writeBack(
        this.objects[i] as object,
        this.kinds[i] as number,
        this.contents[i] as unknown[],
        this.keys[i] ?? null,
      );
    }
  }
}

function contentsOf(o: object, kind: number): [unknown[], readonly string[] | null] {
  switch (kind) {
    case ARRAY:
      return [(o as unknown[]).slice(), null];
    case MAP: {
      const out: unknown[] = [];
      for (const [k, v] of o as Map<unknown, unknown>) out.push(k, v);
      return [out, null];
    }
    case SET:
      return [[...(o as Set<unknown>)], null];
    case BYTES:
      return [[(o as Uint8Array).slice()], null];
    case SELF:
      return [[(o as SavesItself)[SAVE]()], null];
    default: {
      const names = Object.keys(o);
      const rec = o as Record<string, unknown>;
      const out: unknown[] = names.map((k) => rec[k]);
      // a generator's variables follow its fields
      if (kind === GENERATOR) out.push((o as ResumableGenerator).getLocals());
      return [out, names];
    }
  }
}

function writeBack(o: object, kind: number, saved: unknown[], names: readonly string[] | null): void {
  switch (kind) {
    case ARRAY: {
      const a = o as unknown[];
      a.length = saved.length;
      for (let i = 0; i < saved.length; i++) a[i] = saved[i];
      return;
    }
    case MAP: {
      const m = o as Map<unknown, unknown>;
      m.clear();
      for (let i = 0; i < saved.length; i += 2) m.set(saved[i], saved[i + 1]);
      return;
    }
    case SET: {
      const s = o as Set<unknown>;
      s.clear();
      for (const v of saved) s.add(v);
      return;
    }
    case BYTES:
      (o as Uint8Array).set(saved[0] as Uint8Array);
      return;
    case SELF:
      (o as SavesItself)[RESTORE](saved[0]);
      return;
    default: {
      const rec = o as Record<string, unknown>;
      const list = names ?? [];
      if (Object.keys(o).length !== list.length) for (const k of Object.keys(o)) if (!list.includes(k)) delete rec[k];
      for (let i = 0; i < list.length; i++) rec[list[i] as string] = saved[i];
      if (kind === GENERATOR) (o as ResumableGenerator).setLocals(saved[list.length] as unknown[]);
    }
  }
}
