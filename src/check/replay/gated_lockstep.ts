/**
 * The refinement against the reference, held to a tier with a lifecycle gate (the C tier)
 * while the reference has none (PROTOCOL.md's last section; replay_plan.ts says why).
 * It forwards everything to the refinement checker but:
 *  - a call the gate refused, and a trunk GEMV (which the C tier runs under its trunk
 *    lock and the gate, never under mx), are left out of the lockstep: the refinement
 *    sees neither their call nor their return, so their thread is in no call and must
 *    change nothing (which a refused call cannot);
 *  - a call that never held mx (a shutdown that finds the tier dead) stands for the
 *    reference's one empty section: a release with nothing changed, then the return
 *    (init is the exception: the reference's init holds no lock either).
 * Invariant: the refinement sees the marks of every other call unchanged and in order.
 */
import type { MarkOp, Op, TierApi } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import type { CvName } from '../../ops.js';
import type { CallPlan, ReplayPlan } from './replay_plan.js';

const LOCKSTEP: readonly TierApi[] = [
  'init',
  'note',
  'note_block',
  'note_planned',
  'plan_fill',
  'fill_wait',
  'issue',
  'take',
  'shutdown',
  'release_ram',
  'resident_count',
];

export class GatedLockstep implements Checker {
  readonly memory: object | undefined;
  private readonly current = new Map<number, CallPlan | null>();

  constructor(
    private readonly inner: Checker,
    private readonly plan: ReplayPlan,
    /** the call record the thread is in now */
    private readonly callOf: (tid: number) => number,
  ) {
    this.memory = inner.memory;
  }

  onMark(rt: RunView, th: ThreadView, op: MarkOp): void {
    if (op.k === 'call') {
      const p = this.plan.calls.get(this.callOf(th.tid)) ?? null;
      const kept = p !== null && !p.refused && (LOCKSTEP as readonly string[]).includes(p.fn);
      this.current.set(th.tid, kept ? p : null);
      if (!kept) return;
    } else if (op.k === 'ret') {
      const p = this.current.get(th.tid) ?? null;
      this.current.delete(th.tid);
      if (p === null) return;
      if (!p.lockedMx && p.fn !== 'init') this.inner.onQuiescent?.(rt, th, null);
    }
    this.inner.onMark?.(rt, th, op);
  }

  onOp(rt: RunView, th: ThreadView, op: Op, result: unknown): void {
    this.inner.onOp?.(rt, th, op, result);
  }

  onQuiescent(rt: RunView, th: ThreadView, cv: CvName | null): void {
    this.inner.onQuiescent?.(rt, th, cv);
  }

  atEnd(rt: RunView): void {
    this.inner.atEnd?.(rt);
  }
}
