/**
 * End-of-run checks: POST-SHUTDOWN (nothing left) and COMP-EXACT-ONCE (every token and
 * layer combined).
 */
import type { Checker } from '../checker.js';
import { Violation } from '../violation.js';
import type { CheckContext } from '../checked_world.js';

export function endStateChecker(ctx: CheckContext): Checker {
  const { st, world } = ctx;
  return {
    atEnd() {
      const want = world.expectedCombines;
      if (world.combines !== want) {
        throw new Violation('COMP-EXACT-ONCE', `${world.combines} of ${want} token-layers were combined`);
      }
      // judged by what the world saw (the backend shut down), not by the tier's own flags
      const started = world.ledger.tensors.length > 0 || world.ledger.staging.length > 0 || st.uploaderTid >= 0;
      if (started && world.leakedAtShutdown === null) {
        throw new Violation('POST-SHUTDOWN', 'every thread ended but the backend was never shut down');
      }
      if (world.leakedAtShutdown === null) return; // tier never started: nothing to release
      const problems: string[] = [];
      const leaked = world.leakedAtShutdown;
      if (leaked === null) problems.push('the backend was never shut down');
      else if (leaked.tensors > 0 || leaked.staging > 0) {
        problems.push(`${leaked.tensors} device tensors and ${leaked.staging} staging copies alive when the backend shut down`);
      }
      if (world.ledger.liveTensors > 0) problems.push(`${world.ledger.liveTensors} device tensors never freed`);
      if (world.ledger.liveStaging > 0) problems.push(`${world.ledger.liveStaging} staging copies never freed`);
      if (st.qn !== 0 || st.inflight !== 0) problems.push(`ring qn=${st.qn}, inflight=${st.inflight}`);
      for (const row of st.slots) {
        for (const slot of row) {
          if (slot.queued || slot.resident || slot.planned || slot.tensors !== null) {
            problems.push(`L${slot.layer}E${slot.eid} still ${slot.queued ? 'queued' : slot.resident ? 'resident' : slot.planned ? 'planned' : 'holding tensors'}`);
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
