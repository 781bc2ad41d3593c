/**
 * The sync semantics of the two mutexes (the tier's `mx`, the lifecycle gate's `gmx`) and
 * the three condition variables (`cv` and `cv_take` on mx, `gcv` on gmx), as the
 * simulator executes them. Mesa semantics: a woken waiter leaves the cv queue, becomes
 * ready and must re-take its mutex before its `wait` returns; `signal` wakes one waiter
 * (the scheduler chooses which), `broadcast` all, oldest first; spurious wakeups are
 * injected by the scheduler (scheduler.ts). Discipline violations are the shared rules of
 * src/check/sync_discipline.ts.
 */
import { mutexOfCv, type CvName, type MutexName } from '../../src/ops.js';
import { mustHoldMx, mustNotRelock, mustOwnToUnlock } from '../../src/check/sync_discipline.js';
import type { RunState } from './run_state.js';
import { decide } from './choice.js';
import type { WakeCause } from './trace_event.js';
import { ThreadState, type SimThread } from './thread.js';

/** The mutex a trace event names: absent for the tier's mx, so traces of mx read as they always did. */
function on(m: MutexName): { mutex?: 'gmx' } {
  return m === 'mx' ? {} : { mutex: m };
}

export function lock(run: RunState, th: SimThread, m: MutexName = 'mx'): void {
  mustNotRelock(run.ownerOf(m), th, m);
  run.setOwner(m, th.tid);
  if (run.trace !== null) run.record(th, { k: 'lock', ...on(m) });
}

export function unlock(run: RunState, th: SimThread, m: MutexName = 'mx'): void {
  mustOwnToUnlock(run.ownerOf(m), th, m);
  run.setOwner(m, -1);
  if (run.trace !== null) run.record(th, { k: 'unlock', ...on(m) });
}

/** Releases cv's mutex and parks th on cv; it has no pending op until it is woken. */
export function wait(run: RunState, th: SimThread, cv: CvName): void {
  const m = mutexOfCv(cv);
  mustHoldMx(run.ownerOf(m), th, `waits on ${cv}`, m);
  run.setOwner(m, -1);
  th.state = ThreadState.CvWait;
  th.waitingOn = cv;
  th.pending = null;
  run.waiters[cv].push(th);
  run.record(th, { k: 'wait', cv });
}

export function signal(run: RunState, th: SimThread, cv: CvName): void {
  mustHoldMx(run.ownerOf(mutexOfCv(cv)), th, `signals ${cv}`, mutexOfCv(cv));
  const q = run.waiters[cv];
  run.record(th, { k: 'signal', cv, waiters: q.length });
  if (q.length === 0) return;
  const i = q.length > 1 ? decide(run, 'wake', q, q.length, th.tid, false) : 0;
  const w = q[i];
  if (w !== undefined) wake(run, w, 'signal', th.tid);
}

export function broadcast(run: RunState, th: SimThread, cv: CvName): void {
  mustHoldMx(run.ownerOf(mutexOfCv(cv)), th, `broadcasts ${cv}`, mutexOfCv(cv));
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
 * queue and must re-take its mutex.
 */
export function wake(run: RunState, w: SimThread, how: WakeCause, by: number): void {
  const cv = w.waitingOn;
  if (cv !== null) {
    const q = run.waiters[cv];
    const at = q.indexOf(w);
    if (at >= 0) q.splice(at, 1);
    w.relock = mutexOfCv(cv);
  }
  w.state = ThreadState.Ready;
  w.waitingOn = null;
  w.reacquire = true;
  run.record(w, { k: 'woken', how, by });
}

/** The woken thread takes its mutex back; its `wait` returns. */
export function reacquire(run: RunState, th: SimThread): void {
  th.reacquire = false;
  run.setOwner(th.relock, th.tid);
  if (run.trace !== null) run.record(th, { k: 'retake', ...on(th.relock) });
}
