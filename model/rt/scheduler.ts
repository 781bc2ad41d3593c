/**
 * The scheduler: at every step, which thread moves next, and at a `signal` with several
 * waiters, which one wakes. Every choice goes to the strategy; nothing here is random.
 *
 * Options come in a fixed order so that option 0 is always the quiet one: the current
 * thread first (no preemption), then the other runnable threads by tid, then (while the
 * spurious-wakeup budget lasts) every cv waiter as a spurious wakeup. A thread can move
 * when its pending op can execute: a `lock` (or a woken thread's re-lock) needs its mutex free,
 * a `join` a finished target; every other op always can.
 */
import { mutexOfOp } from '../../src/ops.js';
import { Violation } from '../../src/check/violation.js';
import type { RunState } from './run_state.js';
import { ThreadState, type SimThread } from './thread.js';
import { decide } from './choice.js';
import { wake } from './sync.js';

export function canMove(run: RunState, th: SimThread): boolean {
  if (th.state !== ThreadState.Ready) return false;
  if (th.reacquire) return run.ownerOf(th.relock) < 0;
  const op = th.pending;
  if (op === null) return true;
  if (op.k === 'lock') return run.ownerOf(mutexOfOp(op)) < 0;
  if (op.k === 'join') return run.threads[op.tid]?.state === ThreadState.Done;
  return true;
}

/** Picks the next thread to move, or null when every thread finished. */
export function chooseThread(run: RunState): SimThread | null {
  for (;;) {
    // the options are written over the last step's, and the array cut only where its
    // length changes: emptying it and pushing again cost a reallocation at every step
    const cand = run.candidates;
    let n = 0;
    const cur = run.current;
    const curCanMove = cur !== null && canMove(run, cur);
    if (curCanMove) cand[n++] = cur;
    let alive = 0;
    for (const th of run.threads) {
      if (th.state !== ThreadState.Done) alive++;
      if (th !== cur && canMove(run, th)) cand[n++] = th;
    }
    const runnable = n;
    if (run.spuriousLeft > 0) {
      for (const th of run.threads) if (th.state === ThreadState.CvWait) cand[n++] = th;
    }
    if (cand.length !== n) cand.length = n;
    if (cand.length === 0) {
      if (alive === 0) return null;
      const id = run.shutdownStep >= 0 ? 'LIVE-SHUTDOWN' : 'LIVE-DEADLOCK';
      throw new Violation(id, `deadlock: no thread can move: ${run.describeThreads()}`);
    }
    if (cand.length > 1 && run.observes) run.strategy.atThreadChoice?.();
    const i = cand.length > 1 ? decide(run, 'thread', cand, runnable, cur?.tid ?? -1, curCanMove) : 0;
    const th = cand[i];
    if (th === undefined) throw new Error(`internal error: strategy picked option ${i} of ${cand.length}`);
    if (i < runnable) {
      run.current = th;
      return th;
    }
    // a spurious wakeup: the waiter leaves the cv and must re-take mx
    run.spuriousLeft--;
    if (run.observes) run.strategy.onSpurious?.(th);
    wake(run, th, 'spurious', -1);
  }
}
