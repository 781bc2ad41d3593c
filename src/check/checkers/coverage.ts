/**
 * Coverage marks: observes (never fails) which hard-to-reach situations a run reached,
 * so a report can say how often random scenarios really get there.
 */
import type { MarkOp } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import { ThreadState } from '../checker.js';
import type { CheckContext } from '../checked_world.js';

export const COVERAGE_MARKS = [
  'ring-full',
  'swap-waits-on-open-group',
  'swap-abandoned-at-shutdown',
  'upload-failed',
  'fill-wait-saw-inflight-uploads',
  'spurious-wakeup',
  'take-failed',
  'shutdown-with-group-open',
] as const;
export type CoverageMark = (typeof COVERAGE_MARKS)[number];

export class CoverageChecker implements Checker {
  readonly reached = new Set<CoverageMark>();
  private fillWaitInflight = new Map<number, boolean>();

  constructor(private readonly ctx: CheckContext) {}

  onQuiescent(rt: RunView): void {
    const st = this.ctx.st;
    if (st.qn === st.cfg.ringCapacity) this.reached.add('ring-full');
    if (rt.spuriousLeft < rt.limits.spuriousWakeups) this.reached.add('spurious-wakeup');
    if (st.issueOpen) {
      for (const th of rt.threads) {
        if (th.name === 'uploader' && th.state === ThreadState.CvWait && th.waitingOn === 'cv_take') {
          this.reached.add('swap-waits-on-open-group');
        }
      }
    }
  }

  onMark(_rt: RunView, th: ThreadView, op: MarkOp): void {
    const st = this.ctx.st;
    if (op.k === 'mark') {
      if (op.what === 'swap-abandoned') this.reached.add('swap-abandoned-at-shutdown');
      if (op.what === 'upload-failed') this.reached.add('upload-failed');
      if (op.what === 'take-failed') this.reached.add('take-failed');
    } else if (op.k === 'call' && op.call.fn === 'fill_wait') {
      this.fillWaitInflight.set(th.tid, st.inflight > 0);
    } else if (op.k === 'ret' && op.ret.fn === 'fill_wait') {
      if (op.ret.value === 'done' && this.fillWaitInflight.get(th.tid) === true) this.reached.add('fill-wait-saw-inflight-uploads');
    } else if (op.k === 'call' && op.call.fn === 'shutdown' && st.issueOpen) {
      this.reached.add('shutdown-with-group-open');
    }
  }
}
