/**
 * The shortest counterexample: a violation reached in the fewest steps, over every
 * schedule (no preemption bound), found by a uniform-cost search of the state graph.
 *
 * A node is a choice point of the run, named by the choices that reach it; its cost is
 * the steps executed to get there. Expanding a node runs each of its options until the
 * next choice point (one run each, replaying the node's choices first: threads cannot be
 * copied); a state reached before at no more steps (state_digest.ts) is not expanded
 * again. Nodes are taken cheapest first, so when the cheapest open node costs at least
 * the best violation found, no shorter one exists. No reduction is used: a sleep set or
 * a DPOR pruning keeps one order of independent steps, and the order that is shortest to
 * a violation may be the one pruned.
 *
 * What it reports: the violation, the choices that replay it, its steps, and the work
 * (nodes expanded, runs, steps executed). Complete unless a limit stopped it.
 *
 * Steps are tierlab's: one op and the code after it. Beside a Promela model's trail, two
 * differences of granularity add steps and no choice (test/explore/spin_trail.test.ts
 * replays Spin's breadth-first trail of #1360 step for step): init's world calls before
 * the uploader's spawn are steps of main while no other thread exists, and a check made
 * when mx is released comes one step (main's unlock, mx still held until it) after the
 * step that decided. The #1360 race: Spin's 58 steps before the failing one, tierlab's 62.
 */
import { trackOwners } from './owners.js';
import type { PropertyId } from '../../src/check/catalogue.js';
import type { ChoiceContext, DecisionKind, Strategy } from '../rt/strategy.js';
import { ThreadState, type SimThread } from '../rt/thread.js';
import type { StateAccess, Subject } from './subject.js';
import type { ThreadCounters } from './state/state_digest.js';
import { ThreadPositions } from './state/thread_position.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { PROGRESS_MS } from './search_tally.js';

export interface ShortestOptions {
  /** only violations of this property count */
  readonly property?: PropertyId;
  readonly maxSeconds?: number;
  /** now and then (PROGRESS_MS): states expanded and known so far; never changes the search */
  readonly onProgress?: (p: { readonly expanded: number; readonly states: number; readonly seconds: number }) => void;
}

export interface ShortestResult {
  readonly found: {
    readonly property: PropertyId;
    readonly detail: string;
    readonly choices: number[];
    readonly steps: number;
  } | null;
  /** every node cheaper than the result was expanded (no limit stopped the search) */
  readonly complete: boolean;
  readonly expanded: number;
  readonly runs: number;
  readonly stepsExecuted: number;
  readonly states: number;
  readonly seconds: number;
}

interface Node {
  readonly choices: number[];
  readonly steps: number;
  readonly options: number;
  readonly digest: number;
}

/** Thrown to stop a run at the choice point after its given choices. */
class AtNextChoice extends Error {
  static readonly instance = new AtNextChoice('next choice point reached');
}

/**
 * Replays `choices`, then stops at the next choice point, digesting the state there. It
 * tracks the threads the way the state digest needs (positions, mx, cv queue order).
 */
class ProbeStrategy implements Strategy, ThreadCounters {
  readonly name = 'shortest';
  readonly path: number[] = [];
  readonly threads: (SimThread | undefined)[] = [];
  readonly positions = new ThreadPositions(DEFAULT_LIMITS.maxThreads);
  mxOwner = -1;
  gmxOwner = -1;
  spuriousUsed = 0;
  steps = 0;
  digest = 0;
  options = 0;
  private access: StateAccess | null = null;
  private readonly waitSince: number[] = [];
  private spawns = 0;

  constructor(private readonly choices: readonly number[]) {}

  attach(access: StateAccess): void {
    this.access = access;
    access.observer = {
      result: (tid, d) => this.positions.result(tid, d),
      read: (w, v) => this.positions.read(w, v),
      spawnFailed: () => this.positions.unspawn(this.spawns--),
    };
  }

  pick(n: number, _kind: DecisionKind, ctx?: ChoiceContext): number {
    for (const th of ctx?.options ?? []) this.threads[th.tid] = th;
    if (this.path.length < this.choices.length) {
      const c = this.choices[this.path.length] ?? 0;
      this.path.push(c);
      return c;
    }
    this.options = n;
    this.digest = this.access?.digest(this) ?? 0;
    throw AtNextChoice.instance;
  }

  onStep(th: SimThread, holdsMx: boolean, step: number): void {
    void holdsMx;
    this.threads[th.tid] = th;
    const op = th.reacquire ? null : th.pending;
    if (op?.k === 'wait') this.waitSince[th.tid] = step;
    this.positions.step(th.tid, op, th.reacquire);
    if (op?.k === 'spawn') this.positions.spawned(th.tid, ++this.spawns);
    trackOwners(this, th, op);
    this.steps = step + 1;
  }

  onSpurious(th: SimThread): void {
    this.threads[th.tid] = th;
    this.spuriousUsed++;
    this.positions.spurious(th.tid);
  }

  queueRank(tid: number): number {
    const t = this.threads[tid];
    let rank = 0;
    const since = this.waitSince[tid] ?? 0;
    for (const u of this.threads) {
      if (
        u !== undefined &&
        u.state === ThreadState.CvWait &&
        u.waitingOn === t?.waitingOn &&
        (this.waitSince[u.tid] ?? 0) < since
      )
        rank++;
    }
    return rank;
  }
}

/** A binary heap of nodes, cheapest first (ties: fewer choices, then earlier). */
class NodeQueue {
  private readonly heap: Node[] = [];
  get size(): number {
    return this.heap.length;
  }
  peek(): Node | undefined {
    return this.heap[0];
  }
  push(n: Node): void {
    const h = this.heap;
    h.push(n);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p] as Node, h[i] as Node];
      i = p;
    }
  }
  pop(): Node | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Node, h[i] as Node];
        i = m;
      }
    }
    return top;
  }
}

function less(a: Node | undefined, b: Node | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return a.steps !== b.steps ? a.steps < b.steps : a.choices.length < b.choices.length;
}

export function shortestCounterexample(subject: Subject, opts: ShortestOptions = {}): ShortestResult {
  const started = performance.now();
  const deadline = opts.maxSeconds !== undefined ? started + opts.maxSeconds * 1000 : Infinity;
  const best = new Map<number, number>();
  const queue = new NodeQueue();
  // a box, so that the closure's assignments are visible to the loop's type narrowing
  const shortest: { found: ShortestResult['found'] } = { found: null };
  let runs = 0;
  let stepsExecuted = 0;
  let expanded = 0;
  let complete = true;
  let lastProgress = started;
  /** runs `choices` to the next choice point: a node to expand, or a violation, or nothing */
  const probe = (choices: number[]): void => {
    const s = new ProbeStrategy(choices);
    runs++;
    let outcome: ReturnType<Subject['run']> | null = null;
    try {
      outcome = subject.run(s, (a) => s.attach(a));
    } catch (e) {
      if (!(e instanceof AtNextChoice)) throw e;
    }
    s.positions.stop();
    stepsExecuted += outcome?.steps ?? s.steps;
    if (outcome !== null) {
      const v = outcome.violation;
      if (v === null || (opts.property !== undefined && v.property !== opts.property)) return;
      const f = shortest.found;
      if (f === null || outcome.steps < f.steps)
        shortest.found = { property: v.property, detail: v.detail, choices: s.path, steps: outcome.steps };
      return;
    }
    const seen = best.get(s.digest);
    if (seen !== undefined && seen <= s.steps) return;
    best.set(s.digest, s.steps);
    queue.push({ choices, steps: s.steps, options: s.options, digest: s.digest });
  };
  probe([]);
  for (;;) {
    const node = queue.pop();
    if (node === undefined) break;
    const f = shortest.found;
    if (f !== null && node.steps >= f.steps) break;
    // pushed again since at fewer steps: this copy is stale (no decrease-key is kept)
    if ((best.get(node.digest) ?? Infinity) < node.steps) continue;
    const now = performance.now();
    if (now > deadline) {
      complete = false;
      break;
    }
    if (opts.onProgress !== undefined && now - lastProgress >= PROGRESS_MS) {
      lastProgress = now;
      opts.onProgress({ expanded, states: best.size, seconds: (now - started) / 1000 });
    }
    expanded++;
    for (let o = 0; o < node.options; o++) probe([...node.choices, o]);
  }
  return {
    found: shortest.found,
    complete,
    expanded,
    runs,
    stepsExecuted,
    states: best.size,
    seconds: (performance.now() - started) / 1000,
  };
}
