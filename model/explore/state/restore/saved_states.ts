/**
 * The states a restoring DPOR search saved along its current path: at some thread choice
 * points on a run's way to its frontier (dpor/strategy.ts says which, and why none below
 * it), and at the start. A position where one thread could move, or a waiter's wakeup
 * inside a step, has none. Backtracking to position f writes back the nearest saved state
 * at or below f; the search replays from there to f (and may save states on the way).
 *
 * Invariant: a saved state is valid for as long as the path to its position is the
 * current one: the search only backtracks up the path, so states above the frontier are
 * dropped and those at or below it stay right.
 */
import { Snapshot, SnapshotError } from './snapshot.js';

export interface Resumption {
  readonly position: number;
  readonly snapshot: Snapshot;
}

export class SavedStates {
  private readonly at: (Snapshot | null)[] = [];
  /** states that could not be saved (the last reason in `lastFailure`) */
  failures = 0;
  lastFailure: string | null = null;
  /** objects saved, all states together (a cost, for reports) */
  objectsSaved = 0;
  saves = 0;

  constructor(
    /** kept by reference, not looked into: the search's own tree and settings */
    readonly opaque: ReadonlySet<object>,
  ) {}

  /** Saves the state at `position` unless it is saved already (or failed before). */
  offer(position: number, roots: () => readonly object[]): void {
    if (position < this.at.length) return;
    while (this.at.length < position) this.at.push(null);
    try {
      const s = Snapshot.take(roots(), this.opaque);
      this.at.push(s);
      this.saves++;
      this.objectsSaved += s.size;
    } catch (e) {
      if (!(e instanceof SnapshotError)) throw e;
      this.at.push(null);
      this.failures++;
      this.lastFailure = e.message;
    }
  }

  /** positions from the nearest saved state below p up to p (p + 1: none below) */
  gapBelow(p: number): number {
    for (let q = Math.min(p - 1, this.at.length - 1); q >= 0; q--) {
      const s = this.at[q];
      if (s !== null && s !== undefined) return p - q;
    }
    return p + 1;
  }

  /** Forgets every saved state (a run started again from the beginning). */
  clear(): void {
    this.at.length = 0;
  }

  /** The nearest saved state at or below `frontier`; those above it are dropped. */
  nearest(frontier: number): Resumption | null {
    this.at.length = Math.min(this.at.length, frontier + 1);
    for (let p = frontier; p >= 0; p--) {
      const snapshot = this.at[p];
      if (snapshot !== null && snapshot !== undefined) return { position: p, snapshot };
    }
    return null;
  }
}
