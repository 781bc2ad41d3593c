/**
 * Who holds the two mutexes (the tier's mx, the gate's gmx), as an exploring strategy
 * follows them from the steps it sees: a lock or a woken thread's re-lock takes its
 * mutex, an unlock or a wait on one of its condition variables releases it.
 */
import { mutexOfCv, mutexOfOp, type Op } from '../../src/ops.js';
import type { SimThread } from '../rt/thread.js';

export interface Owners {
  mxOwner: number;
  gmxOwner: number;
}

/** `th` takes its step; `op` is its pending op (null: a re-lock after a wakeup, or its first step). */
export function trackOwners(o: Owners, th: SimThread, op: Op | null): void {
  if (th.reacquire) {
    if (th.relock === 'mx') o.mxOwner = th.tid;
    else o.gmxOwner = th.tid;
    return;
  }
  if (op === null) return;
  const m = op.k === 'lock' || op.k === 'unlock' ? mutexOfOp(op) : op.k === 'wait' ? mutexOfCv(op.cv) : null;
  if (m === null) return;
  const tid = op.k === 'lock' ? th.tid : -1;
  if (m === 'mx') o.mxOwner = tid;
  else o.gmxOwner = tid;
}
