/**
 * What a checker is and what it may see of a run: the contract both worlds share.
 *
 * The simulator (model/rt) and the real runtime (src/engine/native) each present a run as
 * a RunView and call the same checkers at the same moments: a trace mark, a release of
 * mx, the end of the run. Checkers are read-only observers; they end a run by throwing a
 * Violation (violation.ts).
 */
import type { CvName, MarkOp, Op } from '../ops.js';
import type { RunLimits } from './limits.js';

export enum ThreadState {
  Ready = 0,
  CvWait = 1,
  Done = 2,
}

/** What a checker sees of one thread. */
export interface ThreadView {
  readonly tid: number;
  readonly name: string;
  readonly state: ThreadState;
  /** the condition variable it sleeps on (state CvWait), else null */
  readonly waitingOn: CvName | null;
}

/** What a checker may see of the run (the simulator's, or a real run's). */
export interface RunView {
  readonly threads: readonly ThreadView[];
  readonly spuriousLeft: number;
  readonly limits: RunLimits;
}

/** Which of the two mutexes a thread holds while its code runs. */
export interface LocksHeld {
  readonly mx: boolean;
  readonly gmx: boolean;
}

/** Read-only observers; they throw a Violation to end the run. */
export interface Checker {
  /** a call/ret/mark op was reached (the thread holds whatever locks it holds) */
  onMark?(rt: RunView, th: ThreadView, op: MarkOp): void;
  /** mx was just released by `th`, by an unlock or by a wait on `cv`: the protocol's
   *  state must be consistent */
  onQuiescent?(rt: RunView, th: ThreadView, cv: CvName | null): void;
  /** the lifecycle gate's gmx was just released by `th`, by an unlock or (waited) by a
   *  wait on gcv: the gate's state must be consistent */
  onGateRelease?(rt: RunView, th: ThreadView, waited: boolean): void;
  /** `th` executed an op other than lock, unlock, wait or a mark, with this result */
  onOp?(rt: RunView, th: ThreadView, op: Op, result: unknown): void;
  /** every thread finished */
  atEnd?(rt: RunView): void;
  /** a digest of the mx-guarded state: a thread that does not hold mx must not change it */
  guardedDigest?(): number;
  /** a digest of the gate's gmx-guarded state: a thread that does not hold gmx must not change it */
  gateDigest?(): number;
  /** `th`'s code runs now, up to its next op, without mx (mx false) or without gmx (gmx
   *  false), or both (null: it stopped running) */
  unguarded?(th: ThreadView | null, held?: LocksHeld): void;
  /**
   * What a checker built as a closure remembers between calls, as fields of objects: a
   * search that saves and restores states (model/explore/state/restore/) reaches it here. Such a
   * checker keeps nothing else that changes (a \`let\` it reassigns would not be restored).
   */
  readonly memory?: object;
}
