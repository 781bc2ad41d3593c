/**
 * The frame stacks of instrumented thread code (locals_transform.ts): for each thread,
 * the generator frames it is suspended in, outermost first, each with its function, the
 * yield it sits at and the values of its locals there. That is the thread's program
 * point and local state, which the state digest hashes in place of its history.
 *
 * The runtime runs one thread at a time; the exploring strategy names it (`run`) before
 * its step, and frames opened during the step (a generator's body starting, a `yield*`
 * entering another) go on that thread's stack; a frame closes when its generator ends.
 *
 * Locals are hashed by what they are: primitives by value; objects of the tier's state
 * by where they sit in it (two locals naming the same slot hash alike, whatever its
 * contents, which the state digest covers); a generator by whether it started and ended
 * (its position and locals are its own frame's); the world's handles by name when the
 * digest names them (world_names.ts), else by content; anything else (lists a thread
 * built) by content, recursively.
 *
 * Invariant: a frame's recorded locals are replaced at each yield, never mutated.
 */
import { Hasher, addValue } from './digest_hash.js';
import type { RecordNames } from './world_names.js';
import { ResumableGenerator } from './restore/resumable_generator.js';

export class Frame {
  pp = -1;
  locals: readonly unknown[] = [];

  constructor(
    readonly fid: number,
    private readonly stack: Frame[] | null,
  ) {}

  /**
   * the generator yields at `pp` with these locals (returns the yielded value). The list is
   * frozen: it is never written after (the next yield brings a new one), and a frozen
   * object is one a saved state need not write back (restore/snapshot.ts): a third of
   * the objects of a save were these lists.
   */
  at<T>(pp: number, locals: readonly unknown[], value: T): T {
    this.pp = pp;
    this.locals = Object.freeze(locals);
    return value;
  }

  exit(): void {
    const s = this.stack;
    if (s === null) return;
    const i = s.lastIndexOf(this);
    if (i >= 0) s.splice(i, 1);
  }
}

export class FrameRegistry {
  /** the stack of the thread whose step runs now (null: no tracking) */
  current: Frame[] | null = null;

  enter(fid: number): Frame {
    const f = new Frame(fid, this.current);
    this.current?.push(f);
    return f;
  }
}

declare global {
  var __tierlabFrames: FrameRegistry | undefined;
}

/** The registry instrumented code reports to (one per JavaScript realm). */
export function frameRegistry(): FrameRegistry {
  globalThis.__tierlabFrames ??= new FrameRegistry();
  return globalThis.__tierlabFrames;
}

/**
 * What a state's digest knows while it folds the threads' locals: the places of the
 * tier's objects (tier_digest.ts), and the content digests of other objects already
 * folded in this digest (the run's plan, the tier's handle and the like sit in the locals
 * of most frames of every thread: each is looked at once per digest).
 */
export interface LocalsView {
  readonly places: ReadonlyMap<object, number>;
  readonly seen: Map<object, number>;
  /** world-owned objects by name (world_names.ts); null: by content, ids included */
  readonly names: RecordNames | null;
}

/** Folds a thread's frames into h. */
export function addFrames(h: Hasher, frames: readonly Frame[], view: LocalsView): void {
  h.add(frames.length);
  for (const f of frames) {
    h.add(f.fid).add(f.pp).add(f.locals.length);
    for (const v of f.locals) addLocal(h, v, view, 0);
  }
}

function addLocal(h: Hasher, v: unknown, view: LocalsView, depth: number): void {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'function') h.add(13).add(v.name.length);
    else addValue(h, v);
    return;
  }
  const place = view.places.get(v);
  if (place !== undefined) {
    h.add(14).add(place);
    return;
  }
  const names = view.names;
  if (names?.fold(h, v, depth)) return;
  let content = view.seen.get(v);
  if (content === undefined) {
    const inner = new Hasher();
    addContent(inner, v, view, depth);
    content = inner.digest();
    view.seen.set(v, content);
  }
  h.add(19).num(content);
}

/** an object outside the tier's state, by what it holds (own fields, entries, elements) */
function addContent(h: Hasher, v: object, view: LocalsView, depth: number): void {
  if (depth > 6) throw new Error('frame digest: a local nests deeper than expected');
  if (Array.isArray(v)) {
    h.add(15).add(v.length);
    for (const x of v) addLocal(h, x, view, depth + 1);
    return;
  }
  if (v instanceof Map) {
    h.add(16).add(v.size);
    for (const [k, x] of v) {
      addLocal(h, k, view, depth + 1);
      addLocal(h, x, view, depth + 1);
    }
    return;
  }
  if (v instanceof Set) {
    h.add(17).add(v.size);
    for (const x of v) addLocal(h, x, view, depth + 1);
    return;
  }
  if (v instanceof ResumableGenerator) {
    // a generator a frame holds (the one it delegates to): while it runs, its own frame is
    // on the stack with its position and locals, so only whether it started and ended is
    // its own; the value it last received is spent by then (a native generator shows none)
    h.add(20).bool(v.started).bool(v.done);
    return;
  }
  h.add(18);
  // own fields: a compiled class's methods are enumerable on its prototype, never state
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === 'function') continue;
    addValue(h, k);
    addLocal(h, x, view, depth + 1);
  }
}
