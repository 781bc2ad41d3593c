/**
 * The lifecycle gate (PROTOCOL.md, "Lifecycle gate"): a small lock of its own, `gmx`
 * with `gcv`, kept outside the tier's state because init clears that state and
 * teardown destroys `mx`, `cv` and `cv_take`.
 *
 * States DEAD -> LIVE -> TEARING_DOWN -> DEAD. Every entry point enters through the gate
 * and leaves through it:
 *  - an expert entry point is admitted only when LIVE, a trunk entry point when LIVE or
 *    DEAD (the trunk works with the expert tier never started); neither while an
 *    exclusive section is queued (`wantX`) or held (`x`): a reader refuses rather than
 *    queue behind a teardown. An admitted caller is counted in `live` for its whole body;
 *  - an exclusive section (init, teardown's second half, a shutdown freeing a trunk left
 *    at DEAD) is admitted only from the state its caller may leave, checked under gmx
 *    before `wantX` is raised; then it waits until `live == 0`. A loser refuses, never
 *    waits.
 *
 * Invariants (GATE-STATE): live >= 0; wantX + x <= 1; x == 1 implies live == 0. Every
 * field here is read and written only with gmx held.
 */
import type { Gen, Op, TensorHandle } from '../ops.js';

/** A trunk matrix resident on a device. */
export interface DenseResident {
  readonly dev: number;
  readonly tensor: TensorHandle;
}

export type LifeState = 'DEAD' | 'LIVE' | 'TEARING_DOWN';

export interface Gate {
  state: LifeState;
  /** callers admitted and not yet out */
  live: number;
  /** an exclusive section queued (its caller waits for live == 0) */
  wantX: number;
  /** an exclusive section held */
  x: number;
  /** trunk matrices placed while the expert tier is DEAD (trunk_place), per offer */
  deadTrunk: (DenseResident | null)[];
  /** a trunk placement at DEAD is under way (its caller holds a gate slot) */
  trunkBusy: boolean;
}

/** Which entry points a door admits: the expert tier's, or the trunk's. */
export type Door = 'expert' | 'trunk';

export const GLOCK: Op = Object.freeze({ k: 'lock', mutex: 'gmx' });
export const GUNLOCK: Op = Object.freeze({ k: 'unlock', mutex: 'gmx' });
export const WAIT_GCV: Op = Object.freeze({ k: 'wait', cv: 'gcv' });
export const BROADCAST_GCV: Op = Object.freeze({ k: 'broadcast', cv: 'gcv' });

export function newGate(trunkOffers: number): Gate {
  return {
    state: 'DEAD',
    live: 0,
    wantX: 0,
    x: 0,
    deadTrunk: new Array<DenseResident | null>(trunkOffers).fill(null),
    trunkBusy: false,
  };
}

/** Whether a caller at `door` may come in now (gmx held). */
export function admitsLocked(g: Gate, door: Door): boolean {
  if (g.wantX > 0 || g.x > 0) return false;
  return g.state === 'LIVE' || (door === 'trunk' && g.state === 'DEAD');
}

/** Enters through the gate; false: refused at the door (the call then does nothing). */
export function* enter(g: Gate, door: Door): Gen<boolean> {
  yield GLOCK;
  const admitted = admitsLocked(g, door);
  if (admitted) g.live++;
  yield GUNLOCK;
  return admitted;
}

/** Leaves the gate; the last one out wakes an exclusive section waiting for it. */
export function* leave(g: Gate): Gen<void> {
  yield GLOCK;
  g.live--;
  if (g.live === 0 && g.wantX > 0) yield BROADCAST_GCV;
  yield GUNLOCK;
}

/** What an exclusive entry found, and what it took over. */
export interface Exclusive {
  /** admitted: the caller holds the exclusive section */
  readonly admitted: boolean;
  /** the state the gate was in */
  readonly found: LifeState;
  /** admitted from DEAD: the trunk placed while DEAD, taken out of the gate for the caller to free */
  readonly deadTrunk: readonly DenseResident[];
}

/**
 * Takes an exclusive section from state `from`: refused unless the gate is in `from` and
 * no other exclusive section is queued or held; then waits until nobody is inside. The
 * state is checked before `wantX` is raised, so a caller that may not leave this state
 * never queues in front of one that may. Admitted from DEAD, the caller also takes over
 * the trunk placed while DEAD (init places its own; a shutdown frees it).
 */
export function* enterExclusive(g: Gate, from: LifeState): Gen<Exclusive> {
  yield GLOCK;
  const found = g.state;
  if (g.state !== from || g.wantX > 0 || g.x > 0) {
    yield GUNLOCK;
    return { admitted: false, found, deadTrunk: [] };
  }
  g.wantX++;
  while (g.live > 0) yield WAIT_GCV;
  g.wantX--;
  g.x++;
  const deadTrunk: DenseResident[] = [];
  g.deadTrunk.forEach((d, i) => {
    if (d !== null) deadTrunk.push(d);
    g.deadTrunk[i] = null;
  });
  yield GUNLOCK;
  return { admitted: true, found, deadTrunk };
}

/** Ends an exclusive section in state `to`, and wakes whoever waits for the state to change. */
export function* leaveExclusive(g: Gate, to: LifeState): Gen<void> {
  yield GLOCK;
  g.x--;
  g.state = to;
  yield BROADCAST_GCV;
  yield GUNLOCK;
}
