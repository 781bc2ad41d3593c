/**
 * Coverage marks: observes (never fails) which hard-to-reach situations a run reached,
 * so a report can say how often random scenarios really get there. A mark that random
 * scenarios never reach means a green result says nothing about that situation.
 */
import type { CvName, MarkOp, Op, TierApi, TierCall } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import { ThreadState } from '../checker.js';
import { allocatorRule, atAllocatorEdge } from '../allocator.js';
import { HEAT_FILE_KINDS, heatFileKind } from '../heat_file_shape.js';
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
  'shutdown-from-own-thread',
  'shutdown-with-uploader-parked',
  'shutdown-with-loaders-running',
  'shutdown-while-fill-wait',
  'shutdown-while-note-block-or-planned',
  'shutdown-during-dense-gemv',
  'group-drained-by-shutdown',
  'full-32-row-group',
  'all-set-mask',
  'streaming-swap',
  'lfru-swap',
  'heat-decayed',
  'init-refused',
  'init-stage-failed',
  'second-init-while-active',
  'init-after-shutdown',
  'heat-file-round-trip',
  'heat-file-ignored',
  'plan-filled-a-device',
  'exclusive-waited-for-callers',
  'shutdown-lost-and-waited',
  'init-refused-busy',
  'init-won-after-teardown',
  'reader-refused-in-teardown',
  'take-refused-with-group-open',
  'trunk-at-dead',
  'dead-shutdown-freed-trunk',
  'dead-shutdown-waited-for-placement',
  'replan-swap',
  'replan-pending',
  'replan-started-by-tick',
  // a re-plan called while pairs of an earlier one are still pending
  'replan-over-pending',
  'evicted-reported',
  'evicted-dropped',
  'sync-issue-waited',
  'prefer-chose-resident',
  'stats-after-mark',
  // a reader (stats, is_resident) calling while the decode thread is inside the tier
  'reader-beside-decode',
  // generation ids: a group or a trunk GEMV of a generation after the first (a stale
  // tensor there is MEM-GENERATION); the backend's shape cache: a trunk matrix placed again
  // on a device, in a later generation, where the cache held one of its shape (defect (d))
  'computed-in-later-generation',
  'trunk-shape-placed-again',
  // a careless engine, within the contract: an expert handed over twice, a plan asked for
  // twice, fill_wait twice in a row, RAM handed back that the tier cannot free
  'note-planned-twice',
  'plan-fill-twice',
  'fill-wait-twice',
  'release-ram-refused',
  // the trunk's placement: best value per byte first, so not in offer order; a matrix
  // that fits nowhere; matrices spread over devices
  'trunk-placed-out-of-offer-order',
  'trunk-left-on-cpu',
  'trunk-on-several-devices',
  // the experts' part sizes: which allocator rules they reach, and edges of those rules
  'expert-part-grain-8k',
  'expert-part-grain-1m',
  'expert-part-grain-2m',
  'expert-part-at-allocator-edge',
  // the heat file's input space (heat_file_shape.ts): each kind of file init read
  ...HEAT_FILE_KINDS.map((k) => `heat-file-${k}` as const),
] as const;
export type CoverageMark = (typeof COVERAGE_MARKS)[number];

export class CoverageChecker implements Checker {
  readonly reached = new Set<CoverageMark>();
  private readonly fillWaitInflight = new Map<number, boolean>();
  private readonly api = new Map<number, TierApi>();
  private uploader = -1;
  private shutdowns = 0;
  private lastTick = -1;
  private marked = false;
  /** threads whose last issue put experts on a device (their take is due) */
  private readonly issuedGroup = new Set<number>();
  /** offer indices in the order this init placed them */
  private densePlaced: number[] = [];
  /** since the last fresh init: experts handed over, plans asked for, the last call */
  private handedOver = new Set<number>();
  private plans = 0;
  private lastCall: TierApi | null = null;
  /** the generation each trunk matrix was last placed in, by device and offer index */
  private readonly trunkShapes = new Map<string, number>();

  constructor(private readonly ctx: CheckContext) {}

  onQuiescent(rt: RunView, th: ThreadView, cv: CvName | null): void {
    const st = this.ctx.st;
    if (st.qn === st.cfg.ringCapacity && st.active) this.reached.add('ring-full');
    if (rt.spuriousLeft < rt.limits.spuriousWakeups) this.reached.add('spurious-wakeup');
    if (st.issueOpen && this.isParkedUploader(rt)) this.reached.add('swap-waits-on-open-group');
    if (cv !== null) this.onQuiescentWait(th, cv);
    if (st.pending.length > 0) this.reached.add('replan-pending');
    if (this.lastTick >= 0 && st.tick !== this.lastTick && st.tick % st.cfg.decayPeriod === 0)
      this.reached.add('heat-decayed');
    this.lastTick = st.tick;
    if (st.groups.some((rows) => rows.length === 32)) this.reached.add('full-32-row-group');
  }

  onQuiescentWait(th: ThreadView, cv: CvName | null): void {
    if (cv === 'cv_take' && this.api.get(th.tid) === 'issue') this.reached.add('sync-issue-waited');
  }

  onGateRelease(_rt: RunView, th: ThreadView, waited: boolean): void {
    if (!waited) return;
    const g = this.ctx.st.gate;
    const api = this.api.get(th.tid);
    if (api === 'shutdown' && g.state === 'TEARING_DOWN' && g.x === 0 && g.wantX === 0)
      this.reached.add('shutdown-lost-and-waited');
    if (g.wantX > 0 && g.live > 0) this.reached.add('exclusive-waited-for-callers');
    if (api === 'shutdown' && g.state === 'DEAD' && g.trunkBusy) this.reached.add('dead-shutdown-waited-for-placement');
  }

  onOp(_rt: RunView, th: ThreadView, op: Op, result: unknown): void {
    if (op.k === 'takeGroup' && this.api.get(th.tid) === 'shutdown') this.reached.add('group-drained-by-shutdown');
    if (op.k === 'spawn' && op.name === 'uploader' && typeof result === 'number' && result >= 0) this.uploader = result;
    if (op.k === 'readHeat' && result instanceof Uint8Array) {
      const cfg = this.ctx.st.cfg;
      this.reached.add(`heat-file-${heatFileKind(result, cfg.layers, cfg.experts)}`);
    }
    if (op.k === 'uploadDense' && result !== null) this.densePlaced.push(op.index);
    this.onGeneration(op, result);
  }

  /** Generation ids and the backend's shape cache (ledger.ts: odd generations are live). */
  private onGeneration(op: Op, result: unknown): void {
    const generation = this.ctx.world.ledger.generation;
    if ((op.k === 'issueGroup' && result === true) || op.k === 'denseGemv') {
      if (generation >= 3) this.reached.add('computed-in-later-generation');
    }
    if (op.k !== 'uploadDense' || result === null) return;
    const key = `${op.dev}/${op.index}`;
    const before = this.trunkShapes.get(key);
    if (before !== undefined && before !== generation) this.reached.add('trunk-shape-placed-again');
    this.trunkShapes.set(key, generation);
  }

  onMark(rt: RunView, th: ThreadView, op: MarkOp): void {
    const st = this.ctx.st;
    if (op.k === 'mark') {
      if (op.what === 'swap-abandoned') this.reached.add('swap-abandoned-at-shutdown');
      if (op.what === 'upload-failed') this.reached.add('upload-failed');
      if (op.what === 'take-failed') this.reached.add('take-failed');
      if (op.what === 'heat-file-ignored') this.reached.add('heat-file-ignored');
      if (op.what === 'swap-enqueued') this.reached.add(st.cfg.streaming ? 'streaming-swap' : 'lfru-swap');
      if (op.what === 'replan-swap') {
        this.reached.add('replan-swap');
        if (this.api.get(th.tid) === 'issue') this.reached.add('replan-started-by-tick');
      }
      if (op.what === 'evicted-dropped') this.reached.add('evicted-dropped');
      return;
    }
    if (op.k === 'ret') {
      this.api.delete(th.tid);
      this.onReturn(th, op);
      return;
    }
    this.api.set(th.tid, op.call.fn);
    this.onCall(th, op.call.fn);
    this.onReader(rt, th, op.call.fn);
    this.onCareless(op.call);
    if (op.call.fn === 'fill_wait') this.fillWaitInflight.set(th.tid, st.inflight > 0);
    if (op.call.fn === 'replan' && st.pending.length > 0) this.reached.add('replan-over-pending');
    if (op.call.fn === 'init') {
      this.densePlaced = [];
      if (st.gate.state === 'LIVE') this.reached.add('second-init-while-active');
      else if (this.shutdowns > 0) this.reached.add('init-after-shutdown');
    }
    if (op.call.fn === 'shutdown' && st.gate.state === 'LIVE') this.onShutdown(rt, th);
  }

  /** What the gate will do with this call (read at the call, as the gate is then). */
  private onCall(th: ThreadView, fn: TierApi): void {
    const g = this.ctx.st.gate;
    const expert = fn !== 'init' && fn !== 'shutdown' && fn !== 'dense_matmul' && fn !== 'trunk_place';
    if (expert && g.state === 'TEARING_DOWN' && th.name !== 'main') this.reached.add('reader-refused-in-teardown');
    if (fn === 'take' && g.state !== 'LIVE' && this.issuedGroup.has(th.tid))
      this.reached.add('take-refused-with-group-open');
    if (fn === 'take') this.issuedGroup.delete(th.tid);
    if (fn === 'shutdown' && g.state === 'DEAD' && (g.trunkBusy || g.deadTrunk.some((d) => d !== null)))
      this.reached.add('dead-shutdown-freed-trunk');
  }

  /** A reader's call while the decode thread is inside the tier, the gate LIVE. */
  private onReader(rt: RunView, th: ThreadView, fn: TierApi): void {
    if ((fn !== 'stats' && fn !== 'is_resident') || th.name === 'main' || this.ctx.st.gate.state !== 'LIVE') return;
    const main = rt.threads.find((t) => t.name === 'main');
    const inside = main === undefined ? undefined : this.api.get(main.tid);
    if (inside === 'note' || inside === 'issue' || inside === 'take' || inside === 'dense_matmul')
      this.reached.add('reader-beside-decode');
  }

  private onReturn(th: ThreadView, op: Extract<MarkOp, { k: 'ret' }>): void {
    const r = op.ret;
    if (r.fn === 'fill_wait' && r.value === 'done' && this.fillWaitInflight.get(th.tid) === true)
      this.reached.add('fill-wait-saw-inflight-uploads');
    if (r.fn === 'issue' && r.value.length === 32 && r.value.every((b) => b)) this.reached.add('all-set-mask');
    if (r.fn === 'issue' && r.value.some((b) => b)) this.issuedGroup.add(th.tid);
    if (r.fn === 'shutdown' && r.value === 'done') this.shutdowns++;
    if (r.fn === 'init' && r.value.state === 'busy') this.reached.add('init-refused-busy');
    if (r.fn === 'init' && r.value.state === 'active' && th.name === 'init-racer')
      this.reached.add('init-won-after-teardown');
    if (r.fn === 'trunk_place' && r.value > 0) this.reached.add('trunk-at-dead');
    if (r.fn === 'evicted_take' && r.value.length > 0) this.reached.add('evicted-reported');
    if (r.fn === 'prefer' && r.value.some((b) => b)) this.reached.add('prefer-chose-resident');
    if (r.fn === 'stats' && r.value !== null && this.marked) this.reached.add('stats-after-mark');
    if (r.fn === 'stats_mark' && r.value) this.marked = true;
    if (r.fn === 'init' && r.value.state === 'off')
      this.reached.add(r.value.reason.startsWith('cannot') ? 'init-stage-failed' : 'init-refused');
    if (r.fn === 'init' && r.value.state === 'active' && this.shutdowns > 0 && this.ctx.st.cfg.heatFile)
      this.reached.add('heat-file-round-trip');
    if (r.fn === 'release_ram' && !r.value) this.reached.add('release-ram-refused');
    if (r.fn === 'init' && r.value.state === 'active') {
      this.handedOver = new Set();
      this.plans = 0;
      this.onTrunkPlaced();
      this.onExpertSizes();
    }
    if (r.fn === 'plan_fill') {
      const st = this.ctx.st;
      if (st.used.some((u, d) => u + st.expBytes > (st.budget[d] ?? 0))) this.reached.add('plan-filled-a-device');
    }
  }

  private onCareless(call: TierCall): void {
    if (call.fn === 'note_planned') {
      const key = call.layer * 1_000_000 + call.eid;
      if (this.handedOver.has(key)) this.reached.add('note-planned-twice');
      this.handedOver.add(key);
    }
    if (call.fn === 'plan_fill' && ++this.plans > 1) this.reached.add('plan-fill-twice');
    if (call.fn === 'fill_wait' && this.lastCall === 'fill_wait') this.reached.add('fill-wait-twice');
    // the main thread's calls, in order (a loader's note_planned does not separate them)
    if (call.fn !== 'note_planned') this.lastCall = call.fn;
  }

  private onExpertSizes(): void {
    const cfg = this.ctx.st.cfg;
    for (const bytes of [...cfg.weightBytes, ...cfg.scaleBytes]) {
      if (bytes <= 0) continue;
      this.reached.add(`expert-part-${allocatorRule(bytes)}`);
      if (atAllocatorEdge(bytes)) this.reached.add('expert-part-at-allocator-edge');
    }
  }

  private onTrunkPlaced(): void {
    const st = this.ctx.st;
    const placed = this.densePlaced;
    if (placed.some((index, i) => i > 0 && index < (placed[i - 1] ?? 0)))
      this.reached.add('trunk-placed-out-of-offer-order');
    if (st.dense.some((d) => d === null)) this.reached.add('trunk-left-on-cpu');
    if (new Set(st.dense.flatMap((d) => (d === null ? [] : [d.dev]))).size > 1)
      this.reached.add('trunk-on-several-devices');
  }

  private onShutdown(rt: RunView, th: ThreadView): void {
    const st = this.ctx.st;
    if (st.issueOpen) this.reached.add('shutdown-with-group-open');
    if (th.name !== 'main') this.reached.add('shutdown-from-own-thread');
    if (this.isParkedUploader(rt)) this.reached.add('shutdown-with-uploader-parked');
    for (const other of rt.threads) {
      if (other.tid === th.tid || other.state === ThreadState.Done) continue;
      if (other.name.startsWith('loader')) this.reached.add('shutdown-with-loaders-running');
      const api = this.api.get(other.tid);
      if (api === 'fill_wait') this.reached.add('shutdown-while-fill-wait');
      if (api === 'note_block' || api === 'note_planned') this.reached.add('shutdown-while-note-block-or-planned');
      if (api === 'dense_matmul') this.reached.add('shutdown-during-dense-gemv');
    }
  }

  /** the uploader asleep on cv_take: a swap waiting for the open group */
  private isParkedUploader(rt: RunView): boolean {
    const up = rt.threads[this.uploader];
    return up !== undefined && up.state === ThreadState.CvWait && up.waitingOn === 'cv_take';
  }
}
