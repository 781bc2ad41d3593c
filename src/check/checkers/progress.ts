/**
 * PROG-FILL: the warmstart does its job. With no fault injected into uploads, staging
 * copies or loads, and a device that really holds its budget, every expert plan_fill
 * returned is resident when fill_wait returns (not stopping): planned, loaded, handed
 * over, uploaded. A tier that plans but never promotes, drops a planned expert, or
 * returns from fill_wait early fails here even when each step looks safe.
 *
 * The obligation belongs to the warmstart: the plan is held against the fill_wait that
 * follows it, and forgotten there, at init and at shutdown. A later fill_wait (a refill
 * between tokens, or a second run's warmstart that does not plan) owes nothing to it: by
 * then an LFRU swap may legitimately have evicted a planned expert
 * (properties/replays/refill-after-planned-expert-evicted.json). What a later fill_wait
 * owes is POST-FILL-WAIT's: every expert enqueued before it is resident or failed.
 */
import type { ExpertKey, MarkOp, Op } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import type { CheckContext } from '../checked_world.js';
import { Violation } from '../violation.js';

/** What the world must promise for the property to apply. */
export interface FillConditions {
  /** no upload, stage or load can fail, and every device holds its budget */
  readonly faultFree: boolean;
}

export function progressChecker(ctx: CheckContext, cond: FillConditions): Checker {
  const memory = { planned: [] as readonly ExpertKey[], fullDevice: false };
  return {
    memory,
    onOp(_rt: RunView, _th: ThreadView, op: Op, result: unknown) {
      // a device that reported full lowered its budget: the plan may legitimately fall short
      if (op.k === 'upload' && result === null) memory.fullDevice = true;
    },
    onMark(_rt: RunView, _th: ThreadView, op: MarkOp) {
      if (op.k !== 'ret') return;
      if (op.ret.fn === 'plan_fill') memory.planned = op.ret.value;
      // a fresh start (not a second init's 'already') or a shutdown ends the warmstart
      if ((op.ret.fn === 'init' && op.ret.value.state === 'active') || op.ret.fn === 'shutdown') memory.planned = [];
      if (op.ret.fn !== 'fill_wait') return;
      const planned = memory.planned;
      memory.planned = [];
      if (op.ret.value !== 'done' || !cond.faultFree || memory.fullDevice) return;
      const st = ctx.st;
      const missing = planned.filter((k) => st.slots[k.layer]?.[k.eid]?.resident !== true);
      if (missing.length > 0) {
        throw new Violation(
          'PROG-FILL',
          `fill_wait returned with ${missing.length} of ${planned.length} planned experts not resident: ${missing
            .slice(0, 6)
            .map((k) => `L${k.layer}E${k.eid}`)
            .join(' ')}`,
        );
      }
    },
  };
}
