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
  // per thread in fill_wait: what was queued and in flight when it last released mx (the
  // release that ends it: another caller may enqueue between it and the return)
  const fills = new Map<number, { inflight: number; queued: string[] } | null>();
  const memory = { decoding: false, fills };
  const inFlight = (): { inflight: number; queued: string[] } => {
    const queued: string[] = [];
    for (const row of st.slots) for (const s of row) if (s.queued) queued.push(`L${s.layer}E${s.eid}`);
    return { inflight: st.inflight, queued };
  };
  return {
    memory,
    onQuiescent(_rt, th, cv) {
      if (cv === null && fills.has(th.tid)) fills.set(th.tid, inFlight());
    },
    onMark(_rt, th, op: MarkOp) {
      if (op.k === 'call' && op.call.fn === 'issue') memory.decoding = true;
      if (op.k === 'call' && op.call.fn === 'fill_wait') fills.set(th.tid, null);
      if (op.k === 'ret' && op.ret.fn === 'init' && op.ret.value.state === 'active') memory.decoding = false;
      if (op.k === 'ret' && op.ret.fn === 'fill_wait' && !memory.decoding && st.counters.queueFullSkips > 0) {
        throw new Violation(
          'POST-WARMSTART',
          `the warmstart lost ${st.counters.queueFullSkips} enqueue(s) to a full ring`,
        );
      }
      const fill = op.k === 'ret' && op.ret.fn === 'fill_wait' ? (fills.get(th.tid) ?? null) : null;
      if (op.k === 'ret' && op.ret.fn === 'fill_wait') fills.delete(th.tid);
      if (op.k === 'ret' && op.ret.fn === 'fill_wait' && op.ret.value === 'done') {
        const at = fill ?? inFlight();
        if (at.queued.length > 0 || at.inflight !== 0) {
          throw new Violation(
            'POST-FILL-WAIT',
            `fill_wait returned with inflight=${at.inflight} and queued, not resident: ${at.queued.join(' ') || 'none'}`,
          );
        }
      } else if (op.k === 'mark' && op.what === 'residency' && st.gate.state === 'LIVE') {
        // (a report refused at the gate, once a teardown began, reports nothing)
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
