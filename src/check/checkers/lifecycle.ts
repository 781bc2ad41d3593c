/**
 * Postconditions of the lifecycle, at API boundaries, judged by the world's ledger:
 *  - POST-SHUTDOWN-RETURN: when shutdown returns to any caller that found a generation
 *    standing (the sync objects alive, and not an init under way: the gate DEAD with its
 *    exclusive section held), that generation has ended: its sync objects destroyed, the
 *    host arrays alive at the call freed. A losing shutdown that returned early, or one
 *    that returned with the teardown stuck, is caught here.
 *  - EVICT-ONCE: the experts the uploader evicted (it frees a victim's tensors, the down
 *    part last: a failed upload frees only parts before it) are what evicted_take
 *    reports, each once and oldest first; an eviction may go unreported only when the
 *    tier counted it dropped (its ring was full). A new uploader starts a new generation's
 *    ring.
 */
import type { MarkOp, Op } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import type { CheckContext } from '../checked_world.js';
import type { SimHostArray } from '../ledger.js';
import { Violation } from '../violation.js';

interface Standing {
  readonly transitions: number;
  readonly arrays: readonly SimHostArray[];
}

export function shutdownReturnChecker(ctx: CheckContext): Checker {
  const { st, world } = ctx;
  const calls = new Map<number, Standing | null>();
  const memory = { calls };
  return {
    memory,
    onMark(_rt: RunView, th: ThreadView, op: MarkOp) {
      const L = world.ledger;
      if (op.k === 'call' && op.call.fn === 'shutdown') {
        const starting = st.gate.state === 'DEAD' && st.gate.x > 0;
        const standing = L.sync.life === 'alive' && !starting;
        calls.set(
          th.tid,
          standing ? { transitions: L.sync.transitions, arrays: L.hostArrays.filter((a) => a.alive) } : null,
        );
        return;
      }
      if (op.k !== 'ret' || op.ret.fn !== 'shutdown') return;
      const s = calls.get(th.tid) ?? null;
      calls.delete(th.tid);
      if (s === null) return;
      const left = s.arrays.filter((a) => a.alive).map((a) => `h${a.id} (${a.what})`);
      if (L.sync.transitions === s.transitions || left.length > 0) {
        throw new Violation(
          'POST-SHUTDOWN-RETURN',
          `${th.name}'s shutdown returned ${op.ret.value} while the generation it found still stands: ${
            L.sync.transitions === s.transitions ? 'mx, cv and cv_take not destroyed' : ''
          }${left.length > 0 ? ` host arrays ${left.join(' ')} alive` : ''}`,
        );
      }
    },
  };
}

export function evictionChecker(ctx: CheckContext): Checker {
  const { st, world } = ctx;
  const memory = { uploaders: new Set<number>(), pending: [] as { layer: number; eid: number }[], dropsSeen: 0 };
  return {
    memory,
    onOp(_rt: RunView, th: ThreadView, op: Op, result: unknown) {
      if (op.k === 'spawn' && op.name === 'uploader' && typeof result === 'number' && result >= 0) {
        memory.uploaders.add(result);
        memory.pending.length = 0;
        memory.dropsSeen = 0;
        return;
      }
      if (op.k !== 'free' || !memory.uploaders.has(th.tid)) return;
      const o = world.tensorOwner(op.tensor);
      if (o.layer >= 0 && o.part === 'down') memory.pending.push({ layer: o.layer, eid: o.eid });
    },
    onMark(_rt: RunView, th: ThreadView, op: MarkOp) {
      if (op.k !== 'ret' || op.ret.fn !== 'evicted_take') return;
      for (const r of op.ret.value) {
        const at = memory.pending.findIndex((p) => p.layer === r.layer && p.eid === r.eid);
        if (at < 0) {
          throw new Violation(
            'EVICT-ONCE',
            `${th.name}'s evicted_take reports L${r.layer}E${r.eid}, which was not evicted since it was last reported`,
          );
        }
        const skipped = memory.pending.splice(0, at + 1).slice(0, at);
        memory.dropsSeen += skipped.length;
        if (memory.dropsSeen > st.evictedDropped) {
          throw new Violation(
            'EVICT-ONCE',
            `${th.name}'s evicted_take reports L${r.layer}E${r.eid} but not the older ${skipped
              .map((k) => `L${k.layer}E${k.eid}`)
              .join(' ')}, and the tier counted only ${st.evictedDropped} dropped`,
          );
        }
      }
    },
  };
}
