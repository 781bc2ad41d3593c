/**
 * SYNC-DISCIPLINE, the rules of the one mutex, stated once for both runtimes: a thread
 * waits, signals, broadcasts or unlocks only holding mx, never re-locks it, never ends
 * holding it, and never reads or changes mx-guarded state without it (reads: guarded_reads.ts).
 */
import { Violation } from './violation.js';

interface Named {
  readonly tid: number;
  readonly name: string;
}

/** `action` reads after the thread's name: "signals cv", "waits on cv_take". */
export function mustHoldMx(owner: number, th: Named, action: string): void {
  if (owner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} ${action} without holding mx`);
}

export function mustNotRelock(owner: number, th: Named): void {
  if (owner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} locks mx it already holds`);
}

export function mustOwnToUnlock(owner: number, th: Named): void {
  if (owner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} unlocks mx it does not hold`);
}

export function mustNotEndHolding(owner: number, th: Named): void {
  if (owner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} ended holding mx`);
}

export function guardedStateChanged(th: Named): Violation {
  return new Violation('SYNC-DISCIPLINE', `${th.name} changed mx-guarded state without holding mx`);
}

export function guardedStateRead(th: Named, what: string): Violation {
  return new Violation('SYNC-DISCIPLINE', `${th.name} read mx-guarded ${what} without holding mx`);
}
