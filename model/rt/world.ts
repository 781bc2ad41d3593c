/**
 * What the runtime needs from the simulated world: it answers every op that is not a
 * sync op (backend and engine ops), charges virtual time for it, and says how a trace
 * prints it. The world is deterministic: same ops in the same order, same answers.
 */
import type { Op } from '../../src/ops.js';

export interface SimWorld {
  /** executes a backend or engine op for thread tid and returns its result */
  exec(op: Op, tid: number): unknown;
  /** virtual microseconds the op takes */
  duration(op: Op): number;
  /** how a trace prints the op and its result */
  describe(op: Op, result: unknown): string;
  /** whether the start of a thread of this name fails (a fault plan); absent: never */
  spawnFails?(name: string): boolean;
  /** MEM-SYNC: `who` does `what` ("locks mx") on the tier's sync objects; the world's
   *  ledger knows whether they were destroyed (absent: not judged) */
  syncUse?(who: string, what: string): void;
}
