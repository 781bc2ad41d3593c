/**
 * The strategy of one run of an exhaustive search: it replays the path the search tree
 * names down to its frontier node, then extends the tree with new nodes, taking each new
 * node's first eligible option, until the run ends.
 *
 * Preemption bound: at a thread choice where the current thread could continue (it is
 * option 0), moving any other thread costs one preemption; options that would exceed the
 * bound are not eligible. Wake choices (which waiter a signal wakes) and spurious
 * wakeups cost nothing: the scenario bounds the wakeups, a signal's waiters are few.
 *
 * Sleep sets (Godefroid 1996), when `reduce` is on: after option t of node n has been
 * explored, a later sibling u carries t in its sleep set as long as the steps taken after
 * u are independent of t (footprint.ts); a thread whose next step is asleep is not
 * chosen, and a run whose every option is asleep stops (sleep-blocked: its continuations
 * were covered by the sibling). Under a preemption bound, putting t to sleep is sound only
 * when the trace that moves t to the front stays within the bound (Coons, Musuvathi,
 * McKinley, OOPSLA 2013, show that naive bounding with POR misses states). Two rules
 * guarantee it here:
 *  - completeness: t's subtree was explored with no pruning by the bound; then it covers
 *    every trace through t, bounded or not;
 *  - cost: u cost a preemption and t did not. Moving t from the middle of n u w t v to the
 *    front changes the preemption count by at most cost(t) - cost(u) + 1 (the switch from
 *    t to u can become a preemption; the switches inside u w are the same, since t's
 *    step neither enables nor disables them; the switch back after t cannot grow), which
 *    is <= 0 here. Such an entry only covers traces within the bound, so whatever it
 *    prunes makes the subtree incomplete for the first rule.
 *
 * State cache (optional): a thread choice point whose state digest, current thread and
 * budget were seen before with no more sleeping is not explored again (consultCache).
 *
 * Invariants: replaying a recorded node must find the same kind and number of options
 * (the run is deterministic); anything else is reported as nondeterminism, never ignored.
 */
import { ThreadState, type SimThread } from '../rt/thread.js';
import type { ChoiceContext, DecisionKind, Strategy } from '../rt/strategy.js';
import { ChoiceNode, sleepIndexOf, type SleepEntry } from './choice_node.js';
import { dependent, MX_ONLY, SPURIOUS_GCV, stepFootprint, type Footprint } from './footprint.js';
import { trackOwners } from './owners.js';
import type { StateAccess } from './subject.js';
import type { ThreadCounters } from './state/state_digest.js';
import { Hasher } from './state/digest_hash.js';
import { ThreadPositions } from './state/thread_position.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { isSubset } from './sorted_sets.js';

/** Thrown to end a run whose continuation is covered elsewhere. */
export class SleepBlocked extends Error {
  constructor(readonly why: 'sleep' | 'cached' = 'sleep') {
    super(why === 'sleep' ? 'sleep-blocked' : 'state already explored');
  }
}

/** A thread choice point's state as first explored: what a later visit may rely on. */
export interface CacheEntry {
  /** keys of the arrival sleep set, sorted */
  readonly sleepKeys: readonly number[];
  readonly budget: number;
  /** the node explored from there (finished by the time anyone relies on it) */
  readonly node: ChoiceNode;
}

export class NondeterminismError extends Error {}

export interface ExplorerConfig {
  readonly preemptions: number;
  readonly reduce: boolean;
  readonly checks: boolean;
  /** the set distinct state digests go into (null: do not count states) */
  readonly states: Set<number> | null;
  /** visited thread choice points by state digest (null: stateless search) */
  readonly cache: Map<number, CacheEntry[]> | null;
}

export class ExplorerStrategy implements Strategy, ThreadCounters {
  readonly name = 'exhaustive';
  readonly path: number[] = [];
  readonly threads: (SimThread | undefined)[] = [];
  readonly positions = new ThreadPositions(DEFAULT_LIMITS.maxThreads);
  readonly waitSince: number[] = [];
  private spawns = 0;
  mxOwner = -1;
  gmxOwner = -1;
  spuriousUsed = 0;
  private depth = 0;
  private budgetLeft: number;
  /** the sleep set while past the frontier; null while replaying the known prefix */
  private live: SleepEntry[] | null;
  private readonly frontier: number;
  private fpOwner: ChoiceNode | null = null;
  private probe: StateAccess | null = null;
  /** nodes this run added */
  added = 0;
  /** steps this run executed (a sleep-blocked or cached run stops early) */
  stepsTaken = 0;

  constructor(
    private readonly stack: ChoiceNode[],
    private readonly cfg: ExplorerConfig,
  ) {
    this.budgetLeft = cfg.preemptions;
    this.frontier = stack.length - 1;
    this.live = stack.length === 0 ? [] : null;
  }

  /** digests are asked for: the run must give access to its state */
  get needsState(): boolean {
    return this.cfg.states !== null || this.cfg.cache !== null;
  }

  attach(access: StateAccess): void {
    this.probe = access;
    access.observer = {
      result: (tid, d) => this.positions.result(tid, d),
      read: (w, v) => this.positions.read(w, v),
      spawnFailed: () => this.spawnFailed(),
    };
  }

  /** the spawn just executed started nothing: its tid goes to the next spawn */
  private spawnFailed(): void {
    this.positions.unspawn(this.spawns--);
  }

  queueRank(tid: number): number {
    const t = this.threads[tid];
    if (t === undefined) return 0;
    // rank in the cv queue: how many threads on the same cv waited longer
    let rank = 0;
    const since = this.waitSince[tid] ?? 0;
    for (let o = 0; o < this.threads.length; o++) {
      const u = this.threads[o];
      if (
        u !== undefined &&
        u.state === ThreadState.CvWait &&
        u.waitingOn === t.waitingOn &&
        (this.waitSince[o] ?? 0) < since
      )
        rank++;
    }
    return rank;
  }

  pick(n: number, kind: DecisionKind, ctx?: ChoiceContext): number {
    if (ctx === undefined) throw new Error('exhaustive search needs the choice context at every choice point');
    const option = this.depth < this.stack.length ? this.replay(n, kind) : this.extend(n, kind, ctx);
    this.depth++;
    this.path.push(option);
    return option;
  }

  private replay(n: number, kind: DecisionKind): number {
    const node = this.stack[this.depth];
    if (node === undefined || node.kind !== kind || node.n !== n) {
      throw new NondeterminismError(
        `choice ${this.depth} replayed as ${kind} of ${n} options, recorded as ${node?.kind ?? '-'} of ${node?.n ?? '-'}: the run is not deterministic`,
      );
    }
    const option = node.chosen;
    this.budgetLeft -= node.costs[option] ?? 0;
    if (this.depth === this.frontier) {
      this.live = this.cfg.reduce ? childSleep(node, option) : [];
      this.expectStep(node, option);
    }
    return option;
  }

  private extend(n: number, kind: DecisionKind, ctx: ChoiceContext): number {
    const live = this.live ?? [];
    const keys: number[] = [];
    const costs: number[] = [];
    for (let i = 0; i < n; i++) {
      const tid = ctx.options[i]?.tid ?? -1;
      const spurious = kind === 'thread' && i >= ctx.runnable;
      keys.push(tid * 2 + (spurious ? 1 : 0));
      costs.push(kind === 'thread' && !spurious && i !== 0 && ctx.currentCanMove ? 1 : 0);
    }
    const node = new ChoiceNode(kind, keys, costs, this.budgetLeft, this.cfg.reduce ? live.slice() : []);
    if (kind === 'thread' && this.cfg.cache !== null) this.consultCache(node, ctx);
    for (let i = 0; i < n; i++) {
      if (kind === 'thread') {
        if ((costs[i] ?? 0) > this.budgetLeft) {
          node.prunedHere = true;
          continue;
        }
        const s = this.cfg.reduce ? sleepIndexOf(live, keys[i] ?? -1) : -1;
        if (s >= 0) {
          if (live[s]?.unbounded !== true) node.prunedHere = true;
          continue;
        }
      }
      node.eligible.push(i);
    }
    if (node.eligible.length === 0) {
      // every option asleep (or over the bound): the continuation is covered elsewhere;
      // the state reached here was still visited
      if (this.cfg.states !== null && this.probe !== null) this.cfg.states.add(this.probe.digest(this));
      this.blockedBy(node.prunedHere);
    }
    this.stack.push(node);
    this.added++;
    const option = node.chosen;
    this.budgetLeft -= costs[option] ?? 0;
    this.expectStep(node, option);
    return option;
  }

  /**
   * State caching: a thread choice point whose state (digest, current thread, whether it
   * could continue) was explored before, with no more sleeping and no less budget, has
   * nothing new below it. Sound only as far as the digest is a state (state_digest.ts).
   */
  private consultCache(node: ChoiceNode, ctx: ChoiceContext): void {
    const cache = this.cfg.cache;
    if (cache === null || this.probe === null) return;
    const d = this.probe.digest(this);
    // the choice's cost structure depends on who moved last and whether it could go on
    const key = new Hasher()
      .add(d % 0x100000000)
      .add(Math.floor(d / 0x100000000))
      .add(ctx.current)
      .bool(ctx.currentCanMove)
      .digest();
    const sleepKeys = node.sleep.map((e) => e.key).sort((a, b) => a - b);
    const seen = cache.get(key);
    if (seen !== undefined) {
      for (const e of seen) {
        if (e.budget >= node.budget && isSubset(e.sleepKeys, sleepKeys)) this.blockedBy(!e.node.complete, 'cached');
      }
    }
    const entry: CacheEntry = { sleepKeys, budget: node.budget, node };
    if (seen === undefined) cache.set(key, [entry]);
    else seen.push(entry);
  }

  /** the next step (or spurious wakeup) is the one this node's option takes */
  private expectStep(node: ChoiceNode, option: number): void {
    if (node.kind !== 'thread') return;
    node.chosenFp = null;
    const spurious = ((node.keys[option] ?? 0) & 1) === 1;
    if (spurious)
      node.chosenFp = this.threads[(node.keys[option] ?? 0) >> 1]?.waitingOn === 'gcv' ? SPURIOUS_GCV : MX_ONLY;
    else this.fpOwner = node;
  }

  onStep(th: SimThread, holdsMx: boolean, step: number, holdsGmx = false): void {
    const tid = th.tid;
    // the state before this step: probed before the thread is counted as started
    if (this.live !== null && this.cfg.states !== null && this.probe !== null)
      this.cfg.states.add(this.probe.digest(this));
    this.threads[tid] = th;
    const fp = stepFootprint(th.pending, th.reacquire, holdsMx, this.cfg.checks, holdsGmx, th.relock);
    const k = th.pending?.k;
    trackOwners(this, th, th.reacquire ? null : th.pending);
    if (this.fpOwner !== null) {
      this.fpOwner.chosenFp = fp;
      this.fpOwner = null;
    }
    if (this.live !== null && this.cfg.reduce) this.sleepStep(tid * 2, fp);
    if (th.pending !== null && th.pending.k === 'wait') this.waitSince[tid] = step;
    this.positions.step(tid, th.reacquire ? null : th.pending, th.reacquire);
    if (!th.reacquire && k === 'spawn') this.positions.spawned(tid, ++this.spawns);
    this.stepsTaken++;
  }

  onSpurious(th: SimThread): void {
    this.threads[th.tid] = th;
    this.spuriousUsed++;
    this.positions.spurious(th.tid);
    if (this.live !== null && this.cfg.reduce)
      this.sleepStep(th.tid * 2 + 1, th.waitingOn === 'gcv' ? SPURIOUS_GCV : MX_ONLY);
  }

  /** A step by `key` with footprint fp runs: stop if it sleeps, else wake what it touches. */
  private sleepStep(key: number, fp: Footprint): void {
    const live = this.live;
    if (live === null) return;
    const s = sleepIndexOf(live, key);
    if (s >= 0) this.blockedBy(live[s]?.unbounded !== true);
    let w = 0;
    for (let r = 0; r < live.length; r++) {
      const e = live[r];
      if (e !== undefined && !dependent(e.fp, fp)) live[w++] = e;
    }
    live.length = w;
  }

  private blockedBy(boundedPruning: boolean, why: 'sleep' | 'cached' = 'sleep'): never {
    if (boundedPruning) {
      const top = this.stack[this.stack.length - 1];
      if (top !== undefined) top.childComplete = false;
    }
    throw new SleepBlocked(why);
  }

  /** called after the run, with the probe still valid: the final state */
  finish(): void {
    if (this.live !== null && this.cfg.states !== null && this.probe !== null)
      this.cfg.states.add(this.probe.digest(this));
  }
}

/** Sleep set for option `option` of `node`: the arrival set plus explored siblings that qualify. */
function childSleep(node: ChoiceNode, option: number): SleepEntry[] {
  const out = node.sleep.slice();
  if (node.kind !== 'thread') return out;
  const cost = node.costs[option] ?? 0;
  for (const e of node.explored) {
    if (e.complete) out.push({ key: e.key, fp: e.fp, unbounded: true });
    else if (cost >= e.cost + 1) out.push({ key: e.key, fp: e.fp, unbounded: false });
  }
  return out;
}
