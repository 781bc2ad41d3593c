/**
 * End-of-run checks, judged by what the world saw, not by the tier's own flags:
 *  - POST-SHUTDOWN: when the backend shuts down, no device tensor, staging copy or host
 *    array is alive; every uploader the tier started was followed by a backend shutdown;
 *    at the end nothing is alive (sync objects included), the gate is DEAD, and the tier
 *    holds nothing (ring empty, nothing queued, resident or planned, budgets released);
 *  - COMP-EXACT-ONCE: every token and layer was combined.
 */
import type { Op } from '../../ops.js';
import type { Checker } from '../checker.js';
import type { Ledger } from '../ledger.js';
import { Violation } from '../violation.js';
import type { CheckContext } from '../checked_world.js';

function alive(L: Ledger): string | null {
  if (L.liveTensors === 0 && L.liveStaging === 0 && L.liveHostArrays === 0) return null;
  return `${L.liveTensors} device tensors, ${L.liveStaging} staging copies and ${L.liveHostArrays} host arrays alive`;
}

export function endStateChecker(ctx: CheckContext): Checker {
  const { st, world } = ctx;
  const memory = { uploaders: 0, shutdowns: 0 };
  return {
    memory,
    onOp(_rt, _th, op: Op, result: unknown) {
      if (op.k === 'spawn' && op.name === 'uploader' && typeof result === 'number' && result >= 0) memory.uploaders++;
      if (op.k !== 'backendShutdown') return;
      memory.shutdowns++;
      const left = alive(world.ledger);
      if (left !== null) throw new Violation('POST-SHUTDOWN', `${left} when the backend shut down`);
    },
    atEnd() {
      const want = world.expectedCombines;
      if (world.combines !== want) {
        throw new Violation('COMP-EXACT-ONCE', `${world.combines} of ${want} token-layers were combined`);
      }
      const problems: string[] = [];
      const { uploaders, shutdowns } = memory;
      if (shutdowns < uploaders)
        problems.push(`the tier started ${uploaders} uploader(s) but the backend was shut down ${shutdowns} time(s)`);
      const left = alive(world.ledger);
      if (left !== null) problems.push(`${left} at the end of the run`);
      if (st.active) problems.push('the tier is still active');
      if (st.gate.state !== 'DEAD') problems.push(`the gate is ${st.gate.state}, not DEAD`);
      if (world.ledger.sync.life === 'alive') problems.push('mx, cv and cv_take were never destroyed');
      if (st.qn !== 0 || st.inflight !== 0) problems.push(`ring qn=${st.qn}, inflight=${st.inflight}`);
      for (const row of st.slots) {
        for (const slot of row) {
          if (slot.queued || slot.resident || slot.planned || slot.tensors !== null) {
            problems.push(
              `L${slot.layer}E${slot.eid} still ${slot.queued ? 'queued' : slot.resident ? 'resident' : slot.planned ? 'planned' : 'holding tensors'}`,
            );
          }
        }
      }
      st.used.forEach((u, d) => {
        if (u !== 0) problems.push(`device ${d} still charges ${u} bytes`);
      });
      if (problems.length > 0) throw new Violation('POST-SHUTDOWN', problems.slice(0, 6).join('; '));
    },
  };
}
