/**
 * GATE-STATE: the lifecycle gate (src/tier/gate.ts) is consistent whenever gmx is
 * released: a known state; live >= 0 and no more than the threads inside a tier call;
 * at most one exclusive section queued or held; none held while a caller is inside.
 * Also the gate's guarded digest: a thread that does not hold gmx must not change it.
 */
import type { MarkOp } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import type { CheckContext } from '../checked_world.js';
import { Violation } from '../violation.js';

const STATES = ['DEAD', 'LIVE', 'TEARING_DOWN'];

export function gateChecker(ctx: CheckContext): Checker {
  const g = ctx.st.gate;
  // tier calls in progress per thread (a call inside a call never happens; counted anyway)
  const inside = new Map<number, number>();
  const memory = { inside };
  return {
    memory,
    onMark(_rt: RunView, th: ThreadView, op: MarkOp) {
      if (op.k === 'call') inside.set(th.tid, (inside.get(th.tid) ?? 0) + 1);
      else if (op.k === 'ret') inside.set(th.tid, (inside.get(th.tid) ?? 1) - 1);
    },
    gateDigest() {
      let h = STATES.indexOf(g.state) * 7 + g.live * 131 + g.wantX * 17 + g.x * 3 + (g.trunkBusy ? 5 : 0);
      for (const d of g.deadTrunk) h = (Math.imul(h, 31) + (d === null ? 1 : 2)) | 0;
      return h;
    },
    onGateRelease() {
      let callers = 0;
      for (const n of inside.values()) if (n > 0) callers++;
      const problem = !STATES.includes(g.state)
        ? `state ${String(g.state)}`
        : g.live < 0 || g.wantX < 0 || g.x < 0
          ? `live=${g.live} wantX=${g.wantX} x=${g.x}`
          : g.live > callers
            ? `live=${g.live} with ${callers} threads in tier calls`
            : g.wantX + g.x > 1
              ? `wantX=${g.wantX} and x=${g.x}: two exclusive sections`
              : g.x > 0 && g.live > 0
                ? `an exclusive section is held with ${g.live} callers inside`
                : null;
      if (problem !== null)
        throw new Violation('GATE-STATE', `the gate is inconsistent at a release of gmx: ${problem}`);
    },
  };
}
