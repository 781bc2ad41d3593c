/**
 * The gate's sections run as one step in the unbounded DPOR search (strategy.ts): where
 * the thread that holds gmx can move and its next step only lets go of gmx (an unlock of
 * gmx, or a wait on gcv), that step is the only one offered. Lipton's reduction: the
 * section's last step moves left of whatever other threads would run in between, so the
 * states in the middle of the section, and every interleaving through them, go.
 *
 * Why it is sound. The step offered alone runs no code holding a mutex: its op releases
 * gmx, and the code after an unlock runs holding nothing (after a wait, none runs). Under
 * the dependence relation the search already stands on (dependence.ts: a step of a gmx
 * holder touches only the gate, code outside the locks only the thread's own locals),
 * it is independent of every step the others can take while gmx is held: they cannot
 * take gmx; the one kind that could be dependent, another thread's spurious wakeup off
 * gcv (or a step of a thread acting on both mutexes), is enabled then or never, and
 * where it is enabled nothing is left out. So {holder} is a persistent set: every
 * execution has an equivalent one with the release moved back to the section.
 *
 * What the relation takes on trust and the searches check here: a step of a thread that
 * does not hold a mutex may not change what that mutex guards. With the checkers on the
 * runtime compares the guarded digests (the tier's mx-guarded state, the gate's fields)
 * across every such step (model/rt/runtime.ts, SYNC-DISCIPLINE), so the code after the
 * release changes neither; the reduction is applied only with the checkers on. Hence
 * the states it leaves out hold the gate's fields and the tier's state as they are just
 * after the release: a thread that reads the gate without gmx (a defect the searches do
 * not check, read guards being off) sees nothing there that it cannot see after the
 * release. A step of the holder that does anything else (a broadcast, a world op, an op
 * on mx) is not offered alone: the others interleave with it as before, and a defect
 * that needs them inside the section is still found (test/explore/gate_sections.test.ts,
 * which also shows that offering every step of the holder alone loses it).
 *
 * Only without a preemption bound: under one, what a schedule costs would change.
 */
import type { Op } from '../../../src/ops.js';
import type { ChoiceContext } from '../../rt/strategy.js';
import { dependent, MxRole, type EventFp } from './dependence.js';

export const gateSections = {
  /**
   * The option to offer alone at this thread choice point, or -1 (offer all). `events[i]`
   * is option i's event; `checks`: the run's checkers (and the guarded digests) are on.
   */
  alone(ctx: ChoiceContext, events: readonly { readonly fp: EventFp }[], checks: boolean): number {
    const holder = ctx.gmxOwner;
    if (!checks || holder < 0 || holder === ctx.mxOwner) return -1;
    let at = -1;
    for (let i = 0; i < ctx.runnable; i++) if (ctx.options[i]?.tid === holder) at = i;
    const th = ctx.options[at];
    const mine = events[at]?.fp;
    if (th === undefined || mine === undefined || th.reacquire || !releasesGmx(th.pending, mine)) return -1;
    for (let i = 0; i < events.length; i++) {
      const other = events[i]?.fp;
      if (i !== at && (other === undefined || dependent(other, mine))) return -1;
    }
    return at;
  },
};

/** an unlock of gmx or a wait on gcv, with a footprint of the gate alone */
function releasesGmx(op: Op | null, f: EventFp): boolean {
  if (op === null || f.mx !== MxRole.Hold || f.mutex !== 1 || f.reads !== 0 || f.writes !== 0) return false;
  return (op.k === 'unlock' && op.mutex === 'gmx') || (op.k === 'wait' && op.cv === 'gcv');
}
