/**
 * The sync semantics of the one mutex `mx` and the two condition variables, as the
 * simulator executes them. Mesa semantics: a woken waiter leaves the cv queue, becomes
 * ready and must re-take mx before its `wait` returns; `signal` wakes one waiter (the
 * scheduler chooses which), `broadcast` all, oldest first; spurious wakeups are injected
 * by the scheduler (scheduler.ts). Discipline violations are the shared rules of
 * src/check/sync_discipline.ts.
 */
import type { CvName } from '../../src/ops.js';
import { mustHoldMx, mustNotRelock, mustOwnToUnlock } from '../../src/check/sync_discipline.js';
import type { RunState } from './run_state.js';
import { decide } from './choice.js';
import type { WakeCause } from './trace_event.js';
import { ThreadState, type SimThread } from './thread.js';

export function lock(run: RunState, th: SimThread): void {
  mustNotRelock(run.mxOwner, th);
  run.mxOwner = th.tid;
  run.record(th, { k: 'lock' });
}

export function unlock(run: RunState, th: SimThread): void {
  mustOwnToUnlock(run.mxOwner, th);
  run.mxOwner = -1;
  run.record(th, { k: 'unlock' });
}

/** Releases mx and parks th on cv; it has no pending op until it is woken. */
export function wait(run: RunState, th: SimThread, cv: CvName): void {
  mustHoldMx(run.mxOwner, th, `waits on ${cv}`);
  run.mxOwner = -1;
  th.state = ThreadState.CvWait;
  th.waitingOn = cv;
  th.pending = null;
  run.waiters[cv].push(th);
  run.record(th, { k: 'wait', cv });
}

export function signal(run: RunState, th: SimThread, cv: CvName): void {
  mustHoldMx(run.mxOwner, th, `signals ${cv}`);
  const q = run.waiters[cv];
  run.record(th, { k: 'signal', cv, waiters: q.length });
  if (q.length === 0) return;
  const i = q.length > 1 ? decide(run, 'wake', q, q.length, th.tid, false) : 0;
  const w = q[i];
  if (w !== undefined) wake(run, w, 'signal', th.tid);
}

export function broadcast(run: RunState, th: SimThread, cv: CvName): void {
  mustHoldMx(run.mxOwner, th, `broadcasts ${cv}`);
  const q = run.waiters[cv];
  run.record(th, { k: 'broadcast', cv, waiters: q.length });
  while (q.length > 0) {
    const w = q[0];
    if (w === undefined) break;
    wake(run, w, 'broadcast', th.tid);
  }
}

/**
 * A woken thread (by a signal or broadcast of thread `by`, or spuriously: by -1) leaves its
 * queue and must re-take mx.
 */
export function wake(run: RunState, w: SimThread, how: WakeCause, by: number): void {
  const cv = w.waitingOn;
  if (cv !== null) {
    const q = run.waiters[cv];
    const at = q.indexOf(w);
    if (at >= 0) q.splice(at, 1);
  }
  w.state = ThreadState.Ready;
  w.waitingOn = null;
  w.reacquire = true;
  run.record(w, { k: 'woken', how, by });
}

/** The woken thread takes mx back; its `wait` returns. */
export function reacquire(run: RunState, th: SimThread): void {
  th.reacquire = false;
  run.mxOwner = th.tid;
  run.record(th, { k: 'retake' });
}
