/**
 * PROG-FILL: the warmstart does its job. With no fault injected into uploads, staging
 * copies or loads, and a device that really holds its budget, every expert plan_fill
 * returned is resident when the warmstart's fill_wait returns (not stopping; a refill
 * during decode may find a planned expert evicted since, by a swap or a re-plan):
 * planned, loaded, handed over, uploaded. A tier that plans but never promotes, drops a planned expert, or
 * returns from fill_wait early fails here even when each step looks safe.
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
  const memory = { planned: [] as readonly ExpertKey[], fullDevice: false, decoding: false };
  return {
    memory,
    onOp(_rt: RunView, _th: ThreadView, op: Op, result: unknown) {
      // a device that reported full lowered its budget: the plan may legitimately fall short
      if (op.k === 'upload' && result === null) memory.fullDevice = true;
    },
    onMark(_rt: RunView, _th: ThreadView, op: MarkOp) {
      if (op.k === 'ret' && op.ret.fn === 'plan_fill') {
        memory.planned = op.ret.value;
        memory.decoding = false;
      }
      if (op.k === 'call' && op.call.fn === 'issue') memory.decoding = true;
      if (memory.decoding) return;
      if (op.k !== 'ret' || op.ret.fn !== 'fill_wait' || op.ret.value !== 'done') return;
      if (!cond.faultFree || memory.fullDevice) return;
      const st = ctx.st;
      const planned = memory.planned;
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
