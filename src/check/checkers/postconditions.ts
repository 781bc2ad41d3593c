/**
 * Postconditions at API boundaries (call/ret marks): POST-FILL-WAIT, POST-WARMSTART,
 * POST-RESIDENCY, VARIANT-FILL-ONCE.
 *
 * What is owed is owed per generation: a fresh init (not a second init's 'already')
 * starts a new warmstart, so a second run's warmstart is held to POST-WARMSTART as the
 * first one was.
 */
import type { MarkOp } from '../../ops.js';
import type { Checker } from '../checker.js';
import { Violation } from '../violation.js';
import type { CheckContext } from '../checked_world.js';

export function postconditionChecker(ctx: CheckContext): Checker {
  const { st, world } = ctx;
  const memory = { decoding: false };
  return {
    memory,
    onMark(_rt, _th, op: MarkOp) {
      if (op.k === 'call' && op.call.fn === 'issue') memory.decoding = true;
      if (op.k === 'ret' && op.ret.fn === 'init' && op.ret.value.state === 'active') memory.decoding = false;
      if (op.k === 'ret' && op.ret.fn === 'fill_wait' && !memory.decoding && st.counters.queueFullSkips > 0) {
        throw new Violation(
          'POST-WARMSTART',
          `the warmstart lost ${st.counters.queueFullSkips} enqueue(s) to a full ring`,
        );
      }
      if (op.k === 'ret' && op.ret.fn === 'fill_wait' && op.ret.value === 'done') {
        const queued: string[] = [];
        for (const row of st.slots) for (const s of row) if (s.queued) queued.push(`L${s.layer}E${s.eid}`);
        if (queued.length > 0 || st.inflight !== 0) {
          throw new Violation(
            'POST-FILL-WAIT',
            `fill_wait returned with inflight=${st.inflight} and queued, not resident: ${queued.join(' ') || 'none'}`,
          );
        }
      } else if (op.k === 'mark' && op.what === 'residency') {
        let resident = 0;
        for (const row of st.slots) for (const s of row) if (s.resident) resident++;
        if (Number(op.detail) !== resident) {
          throw new Violation('POST-RESIDENCY', `warmstart reports ${op.detail} experts resident, ${resident} are`);
        }
      } else if (op.k === 'mark' && op.what === 'swap-enqueued' && !world.ledger.reclaims) {
        throw new Violation(
          'VARIANT-FILL-ONCE',
          `swap ${op.detail ?? ''} enqueued on a backend that never reclaims memory`,
        );
      }
    },
  };
}
