/**
 * The dependence relation of dynamic partial-order reduction (dpor/search.ts): what one
 * event touches, when two events are dependent (they do not commute), and when a
 * dependent pair is a race DPOR may reverse (the two could be enabled at once).
 *
 * An event is one step of a thread (its pending op executes and the thread runs on to its
 * next op) or a spurious wakeup of a waiting thread. Objects other than mx come from
 * footprint.ts (device state, staging copies, RAM, outputs, the heat file) and its
 * argument for each op; this file refines three things for DPOR:
 *  - mx: an event takes part in mx as an acquisition (`lock`, or a woken thread re-taking
 *    mx), as a step of the holder (every step of a thread that holds mx, unlock, wait,
 *    signal and broadcast included: all of mx-guarded state and the cv queues), or as a
 *    spurious wakeup (moves a waiter off its queue, spends the shared budget). Any two
 *    mx events are dependent.
 *  - spawn writes the thread table (tids are handed out in order); the child's events
 *    are ordered after the spawn. join touches nothing: it becomes possible when its
 *    target ends, and that end is ordered before it (an enabling edge, never a race).
 *  - co-enabledness: two steps of holders of mx never run from the same state, and an
 *    acquisition never runs while another thread holds mx; such pairs are dependent but
 *    not races (no order of them can be reversed).
 *  - the lifecycle gate's gmx (and its gcv) is a second mutex with the same rules among
 *    its own events; an event of one mutex and an event of the other touch disjoint
 *    state and queues and are independent (unless their objects conflict), except that
 *    two spurious wakeups always spend the one budget. A step that involves both (a
 *    thread holding one acts on the other: the tier never nests them) is taken as
 *    conflicting with everything, and co-enabled with everything. Acquisitions race with acquisitions,
 *    spurious wakeups with every mx event, except that an acquisition cannot take the
 *    place of a spurious wakeup that happened while another thread held mx (`reversible`;
 *    the wakeup's footprint says whether mx was held); object conflicts race as usual.
 *
 * Invariant: dependent(a, b) is symmetric, and every pair footprint.ts calls dependent
 * is dependent here except spawn/join against unrelated events (refined above).
 */
import { mutexOfCv, mutexOfOp, type MutexName, type Op } from '../../../src/ops.js';
import { DEV, MX, outsideFootprint } from '../footprint.js';

/** the thread table (spawn hands out tids in order) */
export const THREADS = 64;
/** every object bit (an op this file does not know touches everything) */
const ALL_OBJECTS = 0xff & ~MX;

export enum MxRole {
  None = 0,
  Acquire = 1,
  Hold = 2,
  Spurious = 3,
  /** a spurious wakeup while another thread holds mx */
  SpuriousHeld = 4,
}

export function isSpurious(role: MxRole): boolean {
  return role === MxRole.Spurious || role === MxRole.SpuriousHeld;
}

export interface EventFp {
  readonly mx: MxRole;
  /** the mutex of the role: 0 mx, 1 gmx, 2 both (conflicts with every mutex event) */
  readonly mutex: 0 | 1 | 2;
  /** objects read and written, footprint.ts bits without MX (plus THREADS) */
  readonly reads: number;
  readonly writes: number;
}

const cache = new Map<number, EventFp>();
/** the one frozen footprint with these parts (footprints compare by identity nowhere, but are shared) */
export function fp(mx: MxRole, reads: number, writes: number, mutex: 0 | 1 | 2 = 0): EventFp {
  const key = (mutex * 8 + mx) * 65536 + reads * 256 + writes;
  let f = cache.get(key);
  if (f === undefined) {
    f = Object.freeze({ mx, mutex, reads, writes });
    cache.set(key, f);
  }
  return f;
}

export const SPURIOUS_FP = fp(MxRole.Spurious, 0, 0);
export const SPURIOUS_HELD_FP = fp(MxRole.SpuriousHeld, 0, 0);

const index = (m: MutexName): 0 | 1 => (m === 'mx' ? 0 : 1);

/** a spurious wakeup's footprint: whether some thread holds the waiter's mutex when it happens */
export function spuriousFp(mxHeld: boolean, m: MutexName = 'mx'): EventFp {
  return fp(mxHeld ? MxRole.SpuriousHeld : MxRole.Spurious, 0, 0, index(m));
}

/** a step that involves both mutexes: conflicts with, and is co-enabled with, everything */
const BOTH_FP = fp(MxRole.Spurious, ALL_OBJECTS, ALL_OBJECTS, 2);
export const START_FP = fp(MxRole.None, 0, 0);

/**
 * Footprint of the step a thread is about to take: its pending op (null: its first step,
 * which runs its body to its first op on locals only), whether it is re-taking mx after a
 * wakeup, whether it holds mx now, and whether checkers run (they make unlock and wait
 * read device bytes, footprint.ts).
 */
export function eventFp(
  op: Op | null,
  reacquire: boolean,
  holdsMx: boolean,
  checks: boolean,
  holdsGmx = false,
  relock: MutexName = 'mx',
): EventFp {
  const held: MutexName | null = holdsMx ? 'mx' : holdsGmx ? 'gmx' : null;
  if (holdsMx && holdsGmx) return BOTH_FP;
  if (reacquire) return held !== null ? BOTH_FP : fp(MxRole.Acquire, 0, 0, index(relock));
  const role = held !== null ? MxRole.Hold : MxRole.None;
  const m = index(held ?? 'mx');
  if (op === null) return fp(role, 0, 0, m);
  switch (op.k) {
    case 'lock':
      return held !== null ? BOTH_FP : fp(MxRole.Acquire, 0, 0, index(mutexOfOp(op)));
    case 'unlock':
    case 'wait':
    case 'signal':
    case 'broadcast': {
      const of = op.k === 'unlock' ? mutexOfOp(op) : mutexOfCv(op.cv);
      if (held !== null && held !== of) return BOTH_FP;
      const reads = checks && of === 'mx' && (op.k === 'unlock' || op.k === 'wait') ? DEV : 0;
      return fp(MxRole.Hold, reads, 0, index(of));
    }
    case 'spawn':
      return fp(role, 0, THREADS, m);
    case 'join':
      return fp(role, 0, 0, m);
    default: {
      const f = outsideFootprint(op.k);
      if (f === undefined) return fp(MxRole.Spurious, ALL_OBJECTS, ALL_OBJECTS, 2);
      return fp(role, f.reads & ~MX, f.writes & ~MX, m);
    }
  }
}

export function dependent(a: EventFp, b: EventFp): boolean {
  if (a.mx !== MxRole.None && b.mx !== MxRole.None) {
    if (a.mutex === b.mutex || a.mutex === 2 || b.mutex === 2) return true;
    // events of the two mutexes: only the spurious wakeups' shared budget ties them
    if (isSpurious(a.mx) && isSpurious(b.mx)) return true;
  }
  return (a.writes & (b.reads | b.writes)) !== 0 || (b.writes & a.reads) !== 0;
}

/** Two dependent events of different threads could both be enabled in one state. */
export function coEnabled(a: EventFp, b: EventFp): boolean {
  if (a.mx === MxRole.None || b.mx === MxRole.None) return true;
  if (a.mutex !== b.mutex || a.mutex === 2) return true;
  // held or not: a spurious wakeup's one pair that cannot be reversed is `reversible`'s
  if (isSpurious(a.mx) || isSpurious(b.mx)) return true;
  return a.mx === MxRole.Acquire && b.mx === MxRole.Acquire;
}

/**
 * Whether `later` could have run in place of `earlier` (co-enabled pairs only): not an
 * acquisition in place of a spurious wakeup that happened while another thread held mx
 * (the acquisition needs that thread's release, which came after the wakeup). The other
 * way round is fine: a spurious wakeup can go before an acquisition.
 */
export function reversible(earlier: EventFp, later: EventFp): boolean {
  return !(earlier.mx === MxRole.SpuriousHeld && later.mx === MxRole.Acquire && earlier.mutex === later.mutex);
}

/** dependent and co-enabled: a pair whose order DPOR may reverse */
export function mayRace(a: EventFp, b: EventFp): boolean {
  return dependent(a, b) && coEnabled(a, b);
}
