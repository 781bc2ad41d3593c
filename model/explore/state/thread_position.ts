/**
 * Where each thread of a run is, as a hash of its own history: the state digest's stand-in
 * for a generator's program counter and locals, which JavaScript does not let anyone read.
 *
 * A thread's code is deterministic, so its locals are a function of what it observed:
 * the results the world sent back and the values it read from the tier's shared state
 * (read_tracker.ts reports each one, with where it was read). The position hashes, step
 * by step, the op the thread executes and every observation of that step, plus spurious
 * wakeups; a spawned thread starts from its parent's position and its tid.
 *
 * Two threads with equal positions have equal histories (up to hash collisions), hence
 * equal locals. A step count, the digest's program counter before, is not that: two
 * histories of the same length can leave different locals, and merging their states
 * prunes an unexplored future (test/explore/state_cache.test.ts builds such a pair).
 *
 * Invariant: a thread that was never spawned has no position and is left out of digests;
 * observations made while no step runs (`current` is -1: a digest being computed) count
 * for nobody.
 */
import type { Op } from '../../../src/ops.js';
import type { Hasher } from './digest_hash.js';
import { frameRegistry, type Frame } from './frames.js';

const SPURIOUS = 0x5a5a5a5;
const opCodes = new Map<string, number>();

function opCode(k: string): number {
  let c = opCodes.get(k);
  if (c === undefined) {
    // the kind's own characters, so codes do not depend on the order kinds are met
    c = 0;
    for (let i = 0; i < k.length; i++) c = Math.imul(c ^ k.charCodeAt(i), 0x01000193) | 0;
    opCodes.set(k, c);
  }
  return c;
}

export class ThreadPositions {
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  private readonly moved: Uint8Array;
  /** the thread whose step is running (-1: none) */
  current = -1;
  /** per thread, the frames of instrumented code it is suspended in (frames.ts) */
  readonly frames: Frame[][];

  constructor(maxThreads: number) {
    this.lo = new Int32Array(maxThreads);
    this.hi = new Int32Array(maxThreads);
    this.moved = new Uint8Array(maxThreads);
    this.frames = Array.from({ length: maxThreads }, () => []);
    // the main thread exists from the start
    this.mix(0, 0);
  }

  /** the thread has been spawned (main always has) */
  exists(tid: number): boolean {
    return this.moved[tid] === 1;
  }

  private mix(tid: number, x: number): void {
    const a = Math.imul((this.lo[tid] ?? 0) ^ x, 0x01000193);
    const b = Math.imul((this.hi[tid] ?? 0) ^ (x + 0x9e3779b9), 0x5bd1e995);
    this.lo[tid] = a ^ (b >>> 13);
    this.hi[tid] = b ^ (a >>> 15);
    this.moved[tid] = 1;
  }

  /** the thread is about to execute `op` (null: its first step; `reacquire`: re-taking mx
   *  after a wakeup); what it observes until the next step counts for it */
  step(tid: number, op: Op | null, reacquire: boolean): void {
    this.current = tid;
    frameRegistry().current = this.frames[tid] ?? null;
    this.mix(tid, reacquire ? 1 : op === null ? 2 : opCode(op.k));
  }

  /** the running thread read `value` at the place hashed as `where` (read_tracker.ts) */
  read(where: number, value: number): void {
    if (this.current < 0) return;
    this.mix(this.current, where);
    this.mix(this.current, value);
  }

  /** the world answered the thread's op (a digest of the value, state_digest.ts) */
  result(tid: number, digest: number): void {
    this.mix(tid, digest % 0x100000000);
    this.mix(tid, Math.floor(digest / 0x100000000));
  }

  /** no step runs any more (the run ended): nothing is observed for anyone */
  stop(): void {
    this.current = -1;
    frameRegistry().current = null;
  }

  spurious(tid: number): void {
    this.current = -1;
    frameRegistry().current = null;
    this.mix(tid, SPURIOUS);
  }

  /** a spawn by `parent` created `child`: the child's code is the parent's closure */
  spawned(parent: number, child: number): void {
    this.lo[child] = this.lo[parent] ?? 0;
    this.hi[child] = this.hi[parent] ?? 0;
    this.mix(child, child);
    this.mix(parent, child);
  }

  /** the spawn that made `child` failed after all: the spawner got -1, not a tid */
  unspawn(child: number): void {
    this.lo[child] = 0;
    this.hi[child] = 0;
    this.moved[child] = 0;
    if (this.current >= 0) this.mix(this.current, -1);
  }

  addTo(h: Hasher, tid: number): void {
    h.add(this.lo[tid] ?? 0).add(this.hi[tid] ?? 0);
  }
}
