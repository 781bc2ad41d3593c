/**
 * The engine driver's own decisions, held to what the tier answered (DRV-*): the driver
 * is part of the real path, and a driver that misreads an answer breaks the run as surely
 * as a tier that gives a wrong one, often with no safety property noticing.
 *
 * The driver's protocol, in the order of a run (src/engine/driver.ts keeps it; this file
 * is written from the contract, not from that code):
 *  - DRV-WARMSTART: a run warmstarts as its plan says (plan_fill, or note_block) exactly
 *    when it started the tier fresh: its first init answered 'active', or, asked twice
 *    after an 'off', the retry did. A second init's 'already' is not a fresh start and
 *    not a failed one: the first answer stands. Judged at the run's first issue.
 *  - DRV-HANDOVER: every expert the plan returned is handed over (note_planned) before
 *    fill_wait is called, once each (twice at most for an engine whose loaders retry).
 *  - DRV-FILL-WAIT: fill_wait is never called while the caller's own group is open.
 * Only the main thread's calls make decisions here; loaders' hand-overs are counted from
 * any thread.
 */
import type { ExpertKey, InitResult, MarkOp, TierCall } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import { Violation } from '../violation.js';

/** What the driver was asked to do (assembled from its plan by src/engine/assemble.ts). */
export interface DriverDecisions {
  readonly warmstart: 'none' | 'plan' | 'block';
  readonly initTwice: boolean;
  /** careless loaders hand an expert over a second time */
  readonly handOverTwice: boolean;
}

const MAIN = 'main';
const key = (layer: number, eid: number): number => layer * 1_000_000 + eid;

export class DriverChecker implements Checker {
  /** this run's init answers, and which warmstart calls it made */
  private answers: InitResult['state'][] = [];
  private warmstartSeen: 'none' | 'plan' | 'block' = 'none';
  private judged = false;
  /** a run ended (main's shutdown returned): its next init starts a new one */
  private runOver = true;
  /** the plan not yet waited for, and the hand-overs of its experts */
  private planned: ExpertKey[] | null = null;
  private readonly handed = new Map<number, number>();
  private groupOpen = false;

  constructor(private readonly want: DriverDecisions) {}

  onMark(_rt: RunView, th: ThreadView, op: MarkOp): void {
    if (op.k === 'call' && op.call.fn === 'note_planned') {
      const k = key(op.call.layer, op.call.eid);
      this.handed.set(k, (this.handed.get(k) ?? 0) + 1);
    }
    if (th.name !== MAIN) return;
    if (op.k === 'call') this.onCall(op.call);
    if (op.k !== 'ret') return;
    const r = op.ret;
    if (r.fn === 'init') this.answers.push(r.value.state);
    if (r.fn === 'plan_fill') this.planned = [...(this.planned ?? []), ...r.value];
    if (r.fn === 'take') this.groupOpen = false;
    if (r.fn === 'shutdown') this.runOver = true;
  }

  private onCall(call: TierCall): void {
    if (call.fn === 'init' && this.runOver) this.newRun();
    if (call.fn === 'plan_fill' && this.warmstartSeen === 'none') this.warmstartSeen = 'plan';
    if (call.fn === 'note_block' && this.warmstartSeen === 'none') this.warmstartSeen = 'block';
    if (call.fn === 'issue') {
      if (!this.judged) this.judgeWarmstart();
      this.groupOpen = true;
    }
    if (call.fn === 'fill_wait') this.onFillWait();
  }

  private newRun(): void {
    this.answers = [];
    this.warmstartSeen = 'none';
    this.judged = false;
    this.runOver = false;
    this.planned = null;
    this.handed.clear();
    this.groupOpen = false;
  }

  private judgeWarmstart(): void {
    this.judged = true;
    const [first, second] = this.answers;
    const started = first !== 'active' && this.want.initTwice && second !== undefined ? second : first;
    const expected = started === 'active' ? this.want.warmstart : 'none';
    if (this.warmstartSeen === expected) return;
    throw new Violation(
      'DRV-WARMSTART',
      `init answered ${this.answers.join(', then ') || 'nothing'}: the run should warmstart '${expected}', ` +
        `the driver did '${this.warmstartSeen}'`,
    );
  }

  private onFillWait(): void {
    if (this.groupOpen) throw new Violation('DRV-FILL-WAIT', 'fill_wait called while the caller has a group open');
    const planned = this.planned;
    if (planned === null) return;
    this.planned = null;
    const most = this.want.handOverTwice ? 2 : 1;
    for (const k of planned) {
      const n = this.handed.get(key(k.layer, k.eid)) ?? 0;
      if (n >= 1 && n <= most) continue;
      throw new Violation(
        'DRV-HANDOVER',
        `fill_wait called with planned expert L${k.layer}E${k.eid} handed over ${n} times (want 1${most > 1 ? '-2' : ''})`,
      );
    }
  }
}
