/**
 * Lost wakeups, checked whenever mx is released: a thread asleep on a condition variable
 * must still have a reason to sleep. Each wait in the tier is `while (P) wait`, so a
 * sleeper whose predicate P is false at a quiescent point was not woken when P became
 * false: whoever made it false forgot to signal or broadcast (#1340 and its family). It
 * may be rescued by a later broadcast, or never: either way it is a defect.
 *
 * The predicates, by where the thread sleeps (PROTOCOL.md):
 *  - the uploader on cv: the ring is empty and not stopping;
 *  - the uploader on cv_take (a swap): a group is open and not stopping;
 *  - fill_wait: uploads in flight and not stopping;
 *  - note_block, note_planned: the ring is full and not stopping;
 *  - issue in synchronous mode: uploads in flight and not stopping;
 *  - on the gate's gcv: an exclusive section (init, teardown, a shutdown at DEAD) waits
 *    for the callers inside (live > 0); a losing shutdown for the teardown to end (the
 *    gate still TEARING_DOWN).
 * Once stop is set, every cv predicate is false: a sleeper then is LIVE-SHUTDOWN (nobody
 * will ever wake it); before, LIVE-LOST-WAKEUP. cv and cv_take sleepers are judged when
 * mx is released, gcv sleepers when gmx is: each predicate reads what its mutex guards.
 */
import type { MarkOp, Op, TierApi } from '../../ops.js';
import { ThreadState, type Checker, type RunView, type ThreadView } from '../checker.js';
import type { CheckContext } from '../checked_world.js';
import { Violation } from '../violation.js';

export function lostWakeupChecker(ctx: CheckContext): Checker {
  const st = ctx.st;
  const api = new Map<number, TierApi>();
  const memory = { api, uploader: -1 };
  const predicate = (th: ThreadView): boolean => {
    if (th.waitingOn === 'gcv') {
      const g = st.gate;
      const fn = api.get(th.tid);
      if (fn === undefined) return true; // not a tier wait: nothing to say
      return fn === 'shutdown' ? g.state === 'TEARING_DOWN' || g.live > 0 : g.live > 0;
    }
    if (th.tid === memory.uploader) return th.waitingOn === 'cv' ? st.qn === 0 && !st.stop : st.issueOpen && !st.stop;
    switch (api.get(th.tid)) {
      case 'fill_wait':
      case 'issue':
        return st.inflight > 0 && !st.stop;
      case 'note_block':
      case 'note_planned':
        return st.qn === st.cfg.ringCapacity && !st.stop;
      default:
        return true; // not a tier wait: nothing to say
    }
  };
  const judge = (rt: RunView, gate: boolean): void => {
    for (const th of rt.threads) {
      if (th.state !== ThreadState.CvWait || (th.waitingOn === 'gcv') !== gate || predicate(th)) continue;
      const where = th.tid === memory.uploader ? 'uploader' : (api.get(th.tid) ?? 'a wait');
      if (st.stop && !gate)
        throw new Violation(
          'LIVE-SHUTDOWN',
          `${th.name} still sleeps on ${th.waitingOn ?? '?'} (in ${where}) after stop was set and mx released`,
        );
      throw new Violation(
        'LIVE-LOST-WAKEUP',
        `${th.name} sleeps on ${th.waitingOn ?? '?'} in ${where} though its wait is over: nobody woke it`,
      );
    }
  };
  return {
    memory,
    onMark(_rt: RunView, th: ThreadView, op: MarkOp) {
      if (op.k === 'call') api.set(th.tid, op.call.fn);
      else if (op.k === 'ret') api.delete(th.tid);
    },
    onOp(_rt: RunView, _th: ThreadView, op: Op, result: unknown) {
      if (op.k === 'spawn' && op.name === 'uploader' && typeof result === 'number' && result >= 0)
        memory.uploader = result;
    },
    onQuiescent(rt: RunView) {
      judge(rt, false);
    },
    onGateRelease(rt: RunView) {
      judge(rt, true);
    },
  };
}
