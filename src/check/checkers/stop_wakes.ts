/**
 * LIVE-SHUTDOWN, checked early: once `stop` is set, every wait predicate of the tier is
 * false, so whenever mx is released nobody may still sleep on a condition variable. A
 * sleeper there was not woken by shutdown and is waiting for luck (a later broadcast by
 * someone else), which is the #1340 family even when this run happens to be rescued.
 */
import type { Checker, RunView } from '../checker.js';
import { ThreadState } from '../checker.js';
import { Violation } from '../violation.js';
import type { CheckContext } from '../checked_world.js';

export function stopWakesChecker(ctx: CheckContext): Checker {
  return {
    onQuiescent(rt: RunView) {
      if (!ctx.st.stop) return;
      for (const th of rt.threads) {
        if (th.state === ThreadState.CvWait) {
          throw new Violation('LIVE-SHUTDOWN', `${th.name} still sleeps on ${th.waitingOn ?? '?'} after stop was set and mx released`);
        }
      }
    },
  };
}
