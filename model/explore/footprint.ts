/**
 * What one step of a run touches, and when two steps commute (the independence relation
 * behind partial-order reduction).
 *
 * A step is: the thread's pending op executes, then its generator runs on to the next op
 * (trace marks and the checkers they trigger happen on the way). A footprint is a set of
 * read and written objects; two steps are dependent when one writes what the other reads
 * or writes, or when either is `global`. Independent steps commute (same state in either
 * order) and neither enables or disables the other, because whether a step can run
 * depends only on objects in its own footprint: `lock` and a woken thread's re-lock on
 * mx, `join` on a thread ending (global), everything else is always enabled.
 *
 * Why each independence claim holds (everything not listed is dependent):
 *  - MX: every op of a thread that holds mx before or after the step, and every lock,
 *    unlock, wait, signal, broadcast and re-lock after a wakeup, touches all of the
 *    tier's mx-guarded state and the cv queues. They all conflict with each other.
 *  - The code a step runs after its op, up to the next op, touches only that thread's
 *    locals, the decode thread's own group lists and constants, unless the thread holds
 *    mx (then the step is MX). That is the tier's locking discipline (src/tier/state.ts);
 *    a mutant that reads shared state outside mx is a data race this relation does not
 *    model, so reduction could miss what only that race shows.
 *  - DEV: device memory, tensors, open groups, the input and dense buffers, and the fault
 *    counters. Fault plans count calls of a kind over the whole run (the 2nd upload
 *    fails), so two uploads on different devices still do not commute: one object for
 *    all devices. When checkers run, every unlock and wait also reads DEV: the
 *    accounting checker compares device bytes consumed with the budget there.
 *  - STAGING: host staging copies (stage, unstage write; upload and backend shutdown read).
 *  - RAM: the engine's RAM pool and table (load, free, recycle write; ramOf, a CPU
 *    expert and staging read). Loaders' loadRam calls conflict: slot numbers follow order.
 *  - OUT: the combined outputs (combine writes). `route` and `finishToken` touch nothing
 *    shared (route reads the constant scenario), and a thread's first step (running its
 *    body to its first op) touches only its locals.
 *  - HEAT: the heat file (readHeat reads, writeHeat writes).
 *  - spawn and join are global: spawn numbers threads in order and creates new choices;
 *    join becomes possible when another thread ends.
 *  - A spurious wakeup moves a waiter off a cv queue and spends the shared budget: MX
 *    (on the gate's gcv: its queue too, GATE).
 *  - GATE: the lifecycle gate's gmx, gcv and the gate's state, touched by their ops and
 *    by every step of a thread that holds gmx, as MX is by mx's.
 *
 * Not preserved: the LIVE-SHUTDOWN step bound counts steps after the `call shutdown`
 * mark, so reordering independent steps changes that count; it only matters for runs
 * 100 000 steps long (livelock), which exhaustive search does not reach. Deadlock is a
 * state property and is preserved.
 */
import { mutexOfCv, mutexOfOp, type MutexName, type Op } from '../../src/ops.js';

export const MX = 1;
export const DEV = 2;
export const STAGING = 4;
export const RAM = 8;
export const OUT = 16;
export const HEAT = 32;
export const GATE = 128;

export interface Footprint {
  readonly reads: number;
  readonly writes: number;
  readonly global: boolean;
}

const fp = (reads: number, writes: number, global = false): Footprint => Object.freeze({ reads, writes, global });

export const NOTHING = fp(0, 0);
export const GLOBAL = fp(0, 0, true);
export const MX_ONLY = fp(0, MX);
export const GATE_ONLY = fp(0, GATE);
/** a spurious wakeup on gcv: the gate's queue and the budget every spurious wakeup spends */
export const SPURIOUS_GCV = fp(0, MX | GATE);
/** unlock and wait with checkers on: the quiescent checks read device bytes */
const MX_CHECKED = fp(DEV, MX);

/** Footprints of ops run outside mx, by op kind. */
const OUTSIDE: Partial<Record<Op['k'], Footprint>> = {
  memInfo: fp(DEV, 0),
  stage: fp(RAM, STAGING),
  unstage: fp(0, STAGING),
  upload: fp(STAGING, DEV),
  free: fp(0, DEV),
  writeInput: fp(0, DEV),
  issueGroup: fp(0, DEV),
  takeGroup: fp(0, DEV),
  denseGemv: fp(0, DEV),
  uploadDense: fp(0, DEV),
  readHeat: fp(HEAT, 0),
  writeHeat: fp(0, HEAT),
  backendShutdown: fp(STAGING, DEV),
  route: NOTHING,
  ramOf: fp(RAM, 0),
  loadRam: fp(0, RAM),
  freeRam: fp(0, RAM),
  recycleRam: fp(0, RAM),
  cpuExpert: fp(RAM, 0),
  combine: fp(0, OUT),
  finishToken: NOTHING,
  trunkBegin: NOTHING,
  attention: NOTHING,
  denseCpu: NOTHING,
};

/** Footprint of an op run outside mx, by kind (undefined: an op this file does not know). */
export function outsideFootprint(k: Op['k']): Footprint | undefined {
  return OUTSIDE[k];
}

/** The same ops run while holding mx: they also touch everything mx guards. */
const INSIDE: Partial<Record<Op['k'], Footprint>> = Object.fromEntries(
  Object.entries(OUTSIDE).map(([k, f]) => [k, fp(f.reads, f.writes | MX)]),
);

/** `f` with GATE added to what it writes (a step of a thread that holds gmx). */
const gated = new Map<Footprint, Footprint>();
function withGate(f: Footprint): Footprint {
  let g = gated.get(f);
  if (g === undefined) {
    g = fp(f.reads, f.writes | GATE, f.global);
    gated.set(f, g);
  }
  return g;
}

/**
 * Footprint of the step a thread is about to take: its pending op (null: the thread's
 * first step, or `reacquire` after a wakeup), whether it holds mx now, and whether the
 * checkers run (they make unlock and wait read device bytes); and whether it holds the
 * gate's gmx, and which mutex a woken thread re-takes.
 */
export function stepFootprint(
  op: Op | null,
  reacquire: boolean,
  holdsMx: boolean,
  checks: boolean,
  holdsGmx = false,
  relock: MutexName = 'mx',
): Footprint {
  const f = mxFootprint(op, reacquire && relock === 'mx', holdsMx, checks);
  const gate = holdsGmx || (reacquire && relock === 'gmx') || (op !== null && onGate(op));
  if (!gate) return f;
  // a gate op alone touches only the gate (and mx when the thread also holds it)
  if (op !== null && onGate(op) && !holdsMx) return GATE_ONLY;
  if (reacquire && !holdsMx) return GATE_ONLY;
  return withGate(f);
}

function onGate(op: Op): boolean {
  if (op.k === 'lock' || op.k === 'unlock') return mutexOfOp(op) === 'gmx';
  if (op.k === 'wait' || op.k === 'signal' || op.k === 'broadcast') return mutexOfCv(op.cv) === 'gmx';
  return false;
}

function mxFootprint(op: Op | null, reacquire: boolean, holdsMx: boolean, checks: boolean): Footprint {
  if (reacquire) return MX_ONLY;
  if (op === null) return holdsMx ? MX_ONLY : NOTHING;
  switch (op.k) {
    case 'spawn':
    case 'join':
      return GLOBAL;
    case 'unlock':
    case 'wait':
      return checks ? MX_CHECKED : MX_ONLY;
    case 'lock':
    case 'signal':
    case 'broadcast':
      return MX_ONLY;
    default: {
      // an op this file does not know conflicts with everything
      return (holdsMx ? INSIDE[op.k] : OUTSIDE[op.k]) ?? GLOBAL;
    }
  }
}

export function dependent(a: Footprint, b: Footprint): boolean {
  if (a.global || b.global) return true;
  return (a.writes & (b.reads | b.writes)) !== 0 || (b.writes & a.reads) !== 0;
}
