/**
 * SYNC-DISCIPLINE, the rules of the mutexes, stated once for both runtimes: a thread
 * waits, signals, broadcasts or unlocks only holding the mutex (mx, or the gate's gmx
 * for gcv), never re-locks it, never ends holding it, and never reads or changes state
 * that mutex guards without it (reads: guarded_reads.ts).
 */
import type { MutexName } from '../ops.js';
import { Violation } from './violation.js';

interface Named {
  readonly tid: number;
  readonly name: string;
}

/** `action` reads after the thread's name: "signals cv", "waits on cv_take". */
export function mustHoldMx(owner: number, th: Named, action: string, m: MutexName = 'mx'): void {
  if (owner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} ${action} without holding ${m}`);
}

export function mustNotRelock(owner: number, th: Named, m: MutexName = 'mx'): void {
  if (owner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} locks ${m} it already holds`);
}

export function mustOwnToUnlock(owner: number, th: Named, m: MutexName = 'mx'): void {
  if (owner !== th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} unlocks ${m} it does not hold`);
}

export function mustNotEndHolding(owner: number, th: Named, m: MutexName = 'mx'): void {
  if (owner === th.tid) throw new Violation('SYNC-DISCIPLINE', `${th.name} ended holding ${m}`);
}

export function guardedStateChanged(th: Named, m: MutexName = 'mx'): Violation {
  return new Violation('SYNC-DISCIPLINE', `${th.name} changed ${m}-guarded state without holding ${m}`);
}

export function guardedStateRead(th: Named, what: string, m: MutexName = 'mx'): Violation {
  return new Violation('SYNC-DISCIPLINE', `${th.name} read ${m}-guarded ${what} without holding ${m}`);
}
