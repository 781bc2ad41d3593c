/**
 * The strategy of one run of the DPOR search (dpor/search.ts): it replays the current
 * path of the tree down to its frontier position, takes the frontier's new branch, then
 * follows the wakeup subtree that branch carries, and past it takes the quiet option
 * (the thread that moved last goes on) unless that event is asleep. Every event, chosen
 * or forced, goes into the run's happens-before (happens_before.ts), and every position
 * past the frontier gets a tree node (dpor/node.ts) with its enabled events and its
 * arrival sleep set: the explored siblings and sleeping events that the events since are
 * independent of.
 *
 * Positions are events: a thread choice point is the position of the event it chooses;
 * a forced event (one thread could move) has a position too, and a signal's choice of
 * waiter belongs to the position of the signalling event (each waiter is a branch).
 *
 * With a preemption bound, a branch that would preempt the thread that moved last costs
 * one; a branch over the budget is dropped, and the position is marked incomplete.
 * Without one, where the thread holding gmx can move and its next step only lets gmx go,
 * that step is the position's one event (gate_sections.ts: Lipton's reduction).
 *
 * Invariants: replaying a position must offer the recorded branch (anything else is
 * nondeterminism, reported, never ignored); a wakeup branch names an event enabled at
 * its position (an internal error otherwise).
 */
import type { ChoiceContext, DecisionKind, Strategy } from '../../rt/strategy.js';
import type { SimThread } from '../../rt/thread.js';
import { dependent, eventFp, SPURIOUS_FP, spuriousFp, type EventFp } from './dependence.js';
import { trackOwners } from '../owners.js';
import { DporNode, type DoneBranch, type EnabledEvent } from './node.js';
import { HappensBefore } from './happens_before.js';
import { NondeterminismError } from '../explorer.js';
import { insertSingle, type WakeupNode } from './wakeup_tree.js';
import { expandForSummary, mergeSummary, type StateCache } from './cache.js';
import type { ThreadCounters } from '../state/state_digest.js';
import type { StateAccess } from '../subject.js';
import { ThreadPositions } from '../state/thread_position.js';
import { gateSections } from './gate_sections.js';
import type { SavedStates } from '../state/restore/saved_states.js';

/** Thrown to end a run whose continuation is covered elsewhere or cut by the bound. */
export class RunStopped extends Error {
  private constructor(readonly why: 'sleep' | 'bound' | 'cached') {
    super(`run stopped (${why})`);
  }

  /** one instance per reason: thrown thousands of times, its stack never read */
  static readonly sleep = new RunStopped('sleep');
  static readonly bound = new RunStopped('bound');
  static readonly cached = new RunStopped('cached');
}

export interface DporRunConfig {
  readonly preemptions: number;
  readonly checks: boolean;
  readonly maxThreads: number;
  /** the run's spurious-wakeup budget */
  readonly spuriousWakeups: number;
  /** distinct state digests go here (null: do not count states) */
  readonly states: Set<number> | null;
  /** the state cache (null: stateless) */
  readonly cache: StateCache | null;
  /** states saved along the path, to go on from instead of replaying (null: replay) */
  readonly saves: SavedStates | null;
}

/** positions a restoring run may go past the last saved state before it saves again */
const SAVE_GAP = 4;

export class DporStrategy implements Strategy, ThreadCounters {
  readonly name = 'dpor';
  readonly path: number[] = [];
  readonly hb: HappensBefore;
  readonly threads: (SimThread | undefined)[] = [];
  readonly positions: ThreadPositions;
  mxOwner = -1;
  gmxOwner = -1;
  spuriousUsed = 0;
  /** runs below a known state's position stopped there (summary races offered) */
  expansions = 0;
  private access: StateAccess | null = null;
  /** steps and spurious wakeups this run executed */
  eventsRun = 0;
  private budgetLeft: number;
  /** arrival sleep set of the next fresh position (null while replaying) */
  private live: DoneBranch[] | null;
  private nextTid = 1;
  private threadCount = 1;
  /** the runtime's cv queues, mirrored (same pushes and removals): who a wakeup wakes */
  private readonly waiters = new Map<string, number[]>();
  /** the cv of a signal whose waiter is being chosen */
  private signalling: string | null = null;
  private spuriousLeft: number;

  constructor(
    private readonly stack: DporNode[],
    /** position whose chosen branch is new this run (-1: the first run) */
    private frontier: number,
    private readonly cfg: DporRunConfig,
  ) {
    this.hb = new HappensBefore(cfg.maxThreads);
    this.positions = new ThreadPositions(cfg.maxThreads);
    this.budgetLeft = cfg.preemptions;
    this.spuriousLeft = cfg.spuriousWakeups;
    this.live = frontier < 0 ? [] : null;
  }

  private get position(): number {
    return this.hb.length;
  }

  /**
   * A saved state (at or below `frontier`) was just written back, this strategy's run
   * state with it: the run goes on from there to the new branch at `frontier`.
   */
  continueAt(frontier: number): void {
    this.frontier = frontier;
  }

  /** a choice point: a restoring search may save the state here (once per position) */
  atThreadChoice(): void {
    const saves = this.cfg.saves;
    const roots = this.access?.roots;
    const p = this.position;
    if (saves === null || roots === undefined) return;
    // on the way to the frontier only: the search backtracks to the frontier and above,
    // and below it most runs end a step or two later at a known state. There, only where
    // the search will come back for certain (a wakeup branch waits here), or where the
    // last save lies SAVE_GAP positions below: a save takes about the time of ten steps,
    // and almost half the saves at every choice point were never written back
    const wanted =
      p === 0 || (p <= this.frontier && ((this.stack[p]?.wut.length ?? 0) > 0 || saves.gapBelow(p) >= SAVE_GAP));
    if (wanted) saves.offer(p, roots);
  }

  /** digests are asked for: the run must give access to its state */
  get needsState(): boolean {
    return this.cfg.states !== null || this.cfg.cache !== null;
  }

  attach(access: StateAccess): void {
    this.access = access;
    access.observer = {
      result: (tid, d) => this.positions.result(tid, d),
      read: (w, v) => this.positions.read(w, v),
      spawnFailed: () => this.spawnFailed(),
    };
  }

  /** the spawn just executed started nothing: its tid goes to the next spawn */
  private spawnFailed(): void {
    const tid = --this.nextTid;
    this.threadCount--;
    this.hb.unspawn(tid);
    this.positions.unspawn(tid);
  }

  queueRank(tid: number): number {
    const t = this.threads[tid];
    const q = this.waiters.get(t?.waitingOn ?? '');
    return q === undefined ? 0 : Math.max(0, q.indexOf(tid));
  }

  /** called after the run, while its state can still be read: the final state */
  finish(): void {
    if (this.cfg.states !== null && this.access !== null && this.live !== null)
      this.cfg.states.add(this.access.digest(this));
  }
  pick(n: number, kind: DecisionKind, ctx?: ChoiceContext): number {
    if (ctx === undefined) throw new Error('DPOR needs the choice context at every choice point');
    const option = kind === 'wake' ? this.pickWaiter(n) : this.pickThread(n, ctx);
    this.path.push(option);
    return option;
  }

  private pickThread(n: number, ctx: ChoiceContext): number {
    const p = this.position;
    for (let i = 0; i < n; i++) {
      const th = ctx.options[i];
      if (th !== undefined) this.threads[th.tid] = th;
    }
    const all: EnabledEvent[] = [];
    for (let i = 0; i < n; i++) {
      const th = ctx.options[i];
      const spurious = i >= ctx.runnable;
      const fp =
        th === undefined || spurious
          ? spuriousOf(th, ctx.mxOwner, ctx.gmxOwner)
          : eventFp(
              th.pending,
              th.reacquire,
              ctx.mxOwner === th.tid,
              this.cfg.checks,
              ctx.gmxOwner === th.tid,
              th.relock,
            );
      all.push({ key: keyOf(ctx, i), fp, preempts: !spurious && i !== 0 && ctx.currentCanMove });
    }
    // a gate section's release goes alone (gate_sections.ts), unbounded searches only
    const unbounded = this.cfg.preemptions === Infinity;
    const alone = unbounded ? gateSections.alone(ctx, all, this.cfg.checks) : -1;
    const aloneEvent = all[alone];
    const enabled = aloneEvent === undefined ? all : [aloneEvent];
    const known = this.stack[p];
    if (known !== undefined) return this.replayed(known, enabled, all);
    const node = this.freshNode(enabled);
    const option = all.findIndex((e) => e.key === node.chosen.key);
    if (option < 0) throw new Error(`internal error: branch ${node.chosen.key} is not an option at position ${p}`);
    return option;
  }

  /** a recorded position: it must offer the same events, and its branch is taken again */
  private replayed(node: DporNode, enabled: readonly EnabledEvent[], all: readonly EnabledEvent[]): number {
    let same = node.enabled.length === enabled.length;
    for (let i = 0; i < enabled.length && same; i++) if (node.enabled[i]?.key !== enabled[i]?.key) same = false;
    const option = all.findIndex((e) => e.key === node.chosen.key);
    if (!same || option < 0 || enabled.every((e) => e.key !== node.chosen.key)) {
      throw new NondeterminismError(
        `position ${this.position} replayed with options [${enabled.map((e) => e.key).join(',')}], recorded as [${node.enabled.map((e) => e.key).join(',')}]: the run is not deterministic`,
      );
    }
    return option;
  }

  private pickWaiter(n: number): number {
    const p = this.position - 1;
    const node = this.stack[p];
    const ev = this.hb.events[p];
    if (node === undefined || ev === undefined) throw new Error('internal error: a wakeup choice outside any event');
    if (node.chosen.choice < 0) {
      node.chosen.choice = 0;
      const fp = node.enabledEvent(node.chosen.key)?.fp ?? SPURIOUS_FP;
      for (let c = 1; c < n; c++) {
        const key = node.chosen.key;
        const known =
          node.wut.some((w) => w.key === key && w.choice === c) ||
          node.done.some((d) => d.key === key && d.choice === c);
        if (!known) node.wut.push({ key, choice: c, fp, children: [] });
      }
    } else if (node.chosen.choice >= n) {
      throw new NondeterminismError(
        `position ${p} replayed with ${n} waiters to wake, recorded choice ${node.chosen.choice}`,
      );
    }
    ev.choice = node.chosen.choice;
    this.wakeWaiter(p, node.chosen.choice);
    return node.chosen.choice;
  }

  /**
   * A position past the frontier: its node, with the wakeup subtree the position above
   * handed down, and its branch chosen (a wakeup branch if there is one, else the first
   * option in order that is not asleep and fits the bound).
   */
  private freshNode(enabled: EnabledEvent[]): DporNode {
    const p = this.position;
    const above = this.stack[p - 1];
    const sleep = this.live ?? [];
    const node = new DporNode(enabled, sleep, this.budgetLeft, -1);
    node.threadCount = this.threadCount;
    this.consultCache(node);
    node.wut = above?.guide ?? [];
    if (above !== undefined) above.guide = [];
    let chosen: WakeupNode | null = null;
    while (node.wut.length > 0 && chosen === null) {
      const w = node.wut.shift();
      if (w === undefined) break;
      const e = node.enabledEvent(w.key);
      if (e === undefined) throw new Error(`internal error: wakeup branch ${w.key} is not enabled at position ${p}`);
      if (e.preempts && this.budgetLeft < 1) {
        node.incomplete = true;
        continue;
      }
      chosen = w;
    }
    if (chosen !== null) {
      node.chosen = { key: chosen.key, choice: chosen.choice };
      node.guide = chosen.children;
    } else {
      let overBudget = false;
      const pick = enabled.find((e) => {
        if (node.isAsleep(e.key)) return false;
        if (e.preempts && this.budgetLeft < 1) {
          overBudget = true;
          return false;
        }
        return true;
      });
      if (pick === undefined) {
        if (overBudget && above !== undefined) above.cut = true;
        throw overBudget ? RunStopped.bound : RunStopped.sleep;
      }
      node.chosen = { key: pick.key, choice: -1 };
    }
    this.stack.push(node);
    return node;
  }

  /**
   * The state cache at a new position: a covering finished entry stops the run here (its
   * summary's races offered, its summary counted for the position above); otherwise the
   * position gets an entry of its own, finished when the search leaves it.
   */
  private consultCache(node: DporNode): void {
    if (this.access === null || (this.cfg.states === null && this.cfg.cache === null)) return;
    const digest = this.access.digest(this);
    this.cfg.states?.add(digest);
    const cache = this.cfg.cache;
    if (cache === null) return;
    const sleepKeys = node.sleep
      .filter((s) => s.complete)
      .map((s) => s.key)
      .sort((a, b) => a - b);
    const lastTid = this.hb.events[this.position - 1]?.tid ?? -1;
    const hit = cache.covering(digest, sleepKeys, this.budgetLeft, lastTid);
    if (hit !== null && hit.summary !== null) {
      cache.hits++;
      this.expansions += expandForSummary(this.stack, this.hb, hit.summary);
      const above = this.stack[this.position - 1];
      if (above !== undefined) {
        above.summary ??= new Int32Array(this.cfg.maxThreads);
        mergeSummary(above.summary, hit.summary, above.threadCount, lastTid);
      }
      throw RunStopped.cached;
    }
    node.entry = { sleepKeys, budget: this.budgetLeft, lastTid, summary: null, complete: false };
    cache.add(digest, node.entry);
  }

  onStep(th: SimThread, holdsMx: boolean, _step?: number, holdsGmx = false): void {
    this.threads[th.tid] = th;
    const fp = eventFp(th.pending, th.reacquire, holdsMx, this.cfg.checks, holdsGmx, th.relock);
    const op = th.reacquire ? null : th.pending;
    const spawned = op?.k === 'spawn' ? this.nextTid++ : -1;
    this.event(th.tid * 2, fp, spawned, op?.k === 'join' ? op.tid : -1);
    this.positions.step(th.tid, op, th.reacquire);
    if (spawned >= 0) this.positions.spawned(th.tid, spawned);
    trackOwners(this, th, op);
    const at = this.position - 1;
    if (op?.k === 'wait') this.queue(op.cv).push(th.tid);
    else if (op?.k === 'broadcast') {
      const q = this.queue(op.cv);
      for (const w of q) this.wokenBy(w, at);
      q.length = 0;
    } else if (op?.k === 'signal') {
      // one waiter wakes now; with several, the wakeup choice (pickWaiter) says which
      this.signalling = op.cv;
      if (this.queue(op.cv).length === 1) this.wakeWaiter(at, 0);
    }
  }

  onSpurious(th: SimThread): void {
    this.threads[th.tid] = th;
    this.event(th.tid * 2 + 1, spuriousOf(th, this.mxOwner, this.gmxOwner), -1, -1);
    this.positions.spurious(th.tid);
    this.spuriousUsed++;
    const q = this.queue(th.waitingOn ?? '');
    const i = q.indexOf(th.tid);
    if (i >= 0) q.splice(i, 1);
    // the last of the budget: every other waiter's spurious wakeup is gone for good
    if (--this.spuriousLeft === 0) {
      const p = this.position - 1;
      const node = this.stack[p];
      if (node !== undefined)
        for (const e of node.enabled) if ((e.key & 1) === 1 && e.key !== th.tid * 2 + 1) this.offer(node, e.key);
    }
  }

  /**
   * Waiter w was woken by the event at position p: its re-lock is ordered after p, and its
   * spurious wakeup, enabled before p, can no longer happen: a disabled event never runs,
   * so no race would ever bring it back; it is offered at p instead (it could go first).
   */
  private wokenBy(w: number, p: number): void {
    this.hb.woken(w, p);
    const node = this.stack[p];
    if (node !== undefined) this.offer(node, w * 2 + 1);
  }

  private offer(node: DporNode, key: number): void {
    const e = node.enabledEvent(key);
    if (e !== undefined) insertSingle(node.wut, node.sleepSet(), { key, choice: -1, fp: e.fp });
  }

  private queue(cv: string): number[] {
    let q = this.waiters.get(cv);
    if (q === undefined) {
      q = [];
      this.waiters.set(cv, q);
    }
    return q;
  }

  /** the signal at position p woke waiter `option` of its cv's queue */
  private wakeWaiter(p: number, option: number): void {
    const ev = this.hb.events[p];
    const cv = this.signalling ?? '';
    this.signalling = null;
    const q = this.queue(cv);
    const w = q[option];
    if (ev === undefined || w === undefined) return;
    q.splice(option, 1);
    this.wokenBy(w, p);
  }

  private event(key: number, fp: EventFp, spawned: number, joined: number): void {
    const p = this.position;
    let node = this.stack[p];
    if (node === undefined) node = this.freshNode([{ key, fp, preempts: false }]);
    if (node.chosen.key !== key) {
      throw new NondeterminismError(
        `position ${p}: thread ${key >> 1} moved, the path expects ${node.chosen.key >> 1}`,
      );
    }
    const recorded = node.enabledEvent(key);
    if (
      recorded !== undefined &&
      (recorded.fp.mx !== fp.mx ||
        recorded.fp.mutex !== fp.mutex ||
        recorded.fp.reads !== fp.reads ||
        recorded.fp.writes !== fp.writes)
    ) {
      throw new Error(`internal error: position ${p} runs an event unlike the one its node recorded`);
    }
    this.budgetLeft -= recorded?.preempts === true ? 1 : 0;
    this.hb.append(key >> 1, key, fp, spawned, joined);
    this.eventsRun++;
    if (spawned >= 0) this.threadCount++;
    if (p >= this.frontier) this.live = nextSleep(node, key, fp);
  }
}

function keyOf(ctx: ChoiceContext, i: number): number {
  const th = ctx.options[i];
  return (th?.tid ?? -1) * 2 + (i >= ctx.runnable ? 1 : 0);
}

/** Sleep set after `key` runs at `node`: what slept or was explored there and does not depend on it. */
function nextSleep(node: DporNode, key: number, fp: EventFp): DoneBranch[] {
  const out: DoneBranch[] = [];
  const tid = key >> 1;
  for (const list of [node.sleep, node.done]) {
    for (const s of list) if (s.key >> 1 !== tid && !dependent(s.fp, fp)) out.push(s);
  }
  return out;
}

/** A spurious wakeup of `th`: of its condition variable's mutex, held by someone or not. */
function spuriousOf(th: SimThread | undefined, mxOwner: number, gmxOwner: number): EventFp {
  const m = th?.waitingOn === 'gcv' ? 'gmx' : 'mx';
  return spuriousFp((m === 'mx' ? mxOwner : gmxOwner) >= 0, m);
}
