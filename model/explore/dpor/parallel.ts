/**
 * The unbounded, stateless DPOR search of one scenario on several worker threads, with
 * the work handed out as it appears: one thread (this one) owns the search tree
 * (dpor/tree.ts) and hands out jobs; it and the workers run them (dpor/run_task.ts; this
 * thread is slot 0 of the pool, as its own work takes a small share of a core, so N jobs
 * keep N threads busy). A job is a pending branch, and its thread owns the branch's
 * subtree for a time slice: it runs the one-thread search there (races reversed at the
 * subtree's positions, backtracking within it), so that no run waits on a message, and
 * reports what is the tree's: the races whose reversal lands at or above the branch (they
 * are reversed here, into the one tree, so no two threads explore the same reversal,
 * unlike the static split of dpor/shard.ts, whose parts each reverse what they find), the
 * branches offered there, and, when the slice ended first, the subtree's path as it
 * stands, whose pending branches are then handed out like any other. A thread whose job
 * reports gets the deepest pending branch on that job's path (its own subtree, depth
 * first, as the one-thread search would go on) or, when there is none, the shallowest
 * pending branch anywhere (the largest piece of work left, taken from whoever found it).
 *
 * What it promises is the one-thread search's (dpor/tree.ts says why): every Mazurkiewicz
 * trace of the scenario explored, so the same distinct states and the same properties
 * violated. Which schedule comes first depends on the threads' timing, so the schedule
 * count (close to one per trace) and the first counterexample of a property may differ
 * from run to run; the state count and the verdicts do not.
 *
 * Invariant: the search reports `complete` only when the root position finished; if no
 * run is in flight and nothing is pending while the root is unfinished, that is an
 * internal error, never a silent success.
 */
import { forEachReversal, type DporSearchResult, type DporStats } from './search.js';
import { subjectRunOf, type DporSliceReport, type DporTask, type SubjectSpec } from './run_task.js';
import { RunOrder } from './happens_before.js';
import { Reader, Writer } from './wire.js';
import type { SearchOptions } from '../search_types.js';
import { SearchTally } from '../search_tally.js';
import { type ActiveBranch, branchDone, insertInTree, offerInTree, TreeNode } from './tree.js';
import { WorkerThreads } from '../workers/pool.js';

const MODULE = new URL('./run_task.ts', import.meta.url).href;
/** How long a worker explores a job's subtree before it hands the rest back. */
export interface Slice {
  readonly ms: number;
  readonly runs: number;
}

/**
 * Long enough that the messages are a small share of the work (a run of the tier takes
 * 1-3 ms), short enough that the other threads soon have branches to take.
 */
const SLICE: Slice = { ms: 20, runs: Number.MAX_SAFE_INTEGER };
/**
 * Jobs given to a worker at once: this thread reads a worker's report only between its
 * own slices, so a worker's next job can come a slice late. (Measured when a job was one
 * run: with two queued, a worker waited for work before 16-19 % of its runs; with four,
 * 2-3 %.)
 */
const QUEUED = 4;

/** A job handed to a thread: the branch whose subtree it explores, and the tree path to it. */
interface Job {
  readonly task: DporTask;
  /** positions 0..frontier (empty for the first job, whose subtree is the whole tree) */
  readonly path: TreeNode[];
  /** the start number of the path's branch at each position of `path` */
  readonly serials: number[];
  /** the frontier's new branch (null for the first job) */
  readonly branch: ActiveBranch | null;
}

/** The search of the subject `spec` builds in each worker, on `jobs` worker threads. */
export async function dporParallel(
  spec: SubjectSpec,
  opts: SearchOptions,
  jobs: number,
  slice: Slice = SLICE,
): Promise<DporSearchResult> {
  if (Number.isFinite(opts.preemptions) || opts.stateCache === true)
    throw new Error('the search on worker threads is unbounded and stateless (no --preemptions bound, no state cache)');
  const search = new ParallelSearch(spec, opts, slice);
  const pool = new WorkerThreads(Math.max(1, jobs), true);
  try {
    await search.drive(pool);
  } finally {
    await pool.close();
  }
  return search.result();
}

class ParallelSearch {
  private readonly states = new Set<number>();
  private readonly tally: SearchTally;
  private readonly dpor: DporStats = {
    expansions: 0,
    races: 0,
    insertions: 0,
    infeasible: 0,
    sleepBlocked: 0,
    boundStopped: 0,
  };
  private finished = false;
  private serial = 0;
  /** the search's end on the wall clock, which every thread reads alike */
  private readonly deadline: number;
  private runs = 0;
  /** positions with pending branches (a dropped repeat may leave one empty until taken) */
  private readonly pending = new Set<TreeNode>();

  constructor(
    private readonly spec: SubjectSpec,
    private readonly opts: SearchOptions,
    private readonly slice: Slice,
  ) {
    this.tally = new SearchTally(opts, opts.countStates === true ? this.states : null);
    this.deadline = opts.maxSeconds === undefined ? Number.MAX_SAFE_INTEGER : Date.now() + opts.maxSeconds * 1000;
  }

  /** a job's task: its path, and how long its worker explores the branch's subtree */
  private task(positions: Int32Array, guide: DporTask['guide']): DporTask {
    const left = (this.opts.maxSchedules ?? Infinity) - this.runs;
    return {
      positions,
      guide,
      maxRuns: Math.max(1, Math.min(this.slice.runs, left)),
      sliceMs: this.slice.ms,
      deadline: this.deadline,
      stopOnViolation: this.opts.stopOnViolation !== false,
    };
  }

  /**
   * Runs jobs on the pool's workers until the tree is finished or a limit stops it. Each
   * worker has up to QUEUED jobs given at once, so that it never waits for this thread
   * to read its report (on a loaded machine a thread's wake-up can take milliseconds).
   */
  drive(pool: WorkerThreads): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const load = new Array<number>(pool.size).fill(0);
      const told = new Array<boolean>(pool.size).fill(false);
      let inFlight = 0;
      let failed = false;
      const fail = (e: unknown): void => {
        failed = true;
        reject(e instanceof Error ? e : new Error(String(e)));
      };
      const launch = (worker: number, job: Job): void => {
        load[worker] = (load[worker] ?? 0) + 1;
        inFlight++;
        const arg: DporTask = told[worker] === true ? job.task : { ...job.task, subject: this.spec };
        told[worker] = true;
        pool.run<DporSliceReport>(worker, { module: MODULE, fn: 'runDporSlice', arg }).then((report) => {
          load[worker] = (load[worker] ?? 1) - 1;
          inFlight--;
          if (failed) return;
          try {
            hand(worker, this.apply(job, report));
          } catch (e) {
            fail(e);
          }
        }, fail);
      };
      // tops every worker up to QUEUED jobs, the reporting one first, with the job nearest `hint`
      const hand = (first: number, hint: TreeNode | null): void => {
        const stop = this.finished || this.tally.limitReached(this.runs);
        for (let k = 0; k < pool.size && !stop; k++) {
          const w = (first + k) % pool.size;
          while ((load[w] ?? 0) < QUEUED) {
            const job = this.nextJob(hint);
            if (job === null) break;
            hint = null;
            launch(w, job);
          }
        }
        if (inFlight > 0) return;
        if (!stop && !this.finished)
          reject(new Error('internal error: the parallel DPOR search ran out of work before its tree finished'));
        else resolve();
      };
      const first = new Writer();
      first.push(0);
      first.push(0);
      launch(0, { task: this.task(first.done(), []), path: [], serials: [], branch: null });
    });
  }

  result(): DporSearchResult {
    return { ...this.tally.result(true, false), dpor: this.dpor, restore: null };
  }

  /** the deepest pending branch on the path ending at `hint`, else the shallowest anywhere */
  private nextJob(hint: TreeNode | null): Job | null {
    for (let at = hint; at !== null; at = at.parent) {
      const job = this.take(at);
      if (job !== null) return job;
    }
    for (;;) {
      let best: TreeNode | null = null;
      for (const n of this.pending) if (best === null || n.depth < best.depth) best = n;
      if (best === null) return null;
      const job = this.take(best);
      if (job !== null) return job;
    }
  }

  /** starts the next pending branch of `node` as a job (null: none left there) */
  private take(node: TreeNode): Job | null {
    let dropped = false;
    for (;;) {
      const w = node.wut.shift();
      if (w === undefined) {
        this.pending.delete(node);
        // dropped repeats may have been all that was left
        if (dropped && node.finished && node.parent !== null && node.via !== null)
          this.settle(branchDone(node.parent, node.via));
        return null;
      }
      const e = node.enabledEvent(w.key);
      if (e === undefined)
        throw new Error(`internal error: wakeup branch ${w.key} is not enabled at position ${node.depth}`);
      // an exact repeat of an explored or started branch with nothing below it adds nothing
      const same = (b: { key: number; choice: number }): boolean => b.key === w.key && b.choice === w.choice;
      if (w.children.length === 0 && (node.done.some(same) || node.active.some(same))) {
        dropped = true;
        continue;
      }
      const sleep = node.sleepForNew();
      const branch: ActiveBranch = {
        key: w.key,
        choice: w.choice,
        fp: e.fp,
        serial: this.serial++,
        child: null,
        guide: w.children,
        held: [],
      };
      node.active.push(branch);
      // the set holds only positions with something pending: it is scanned for every hand-out
      if (node.wut.length === 0) this.pending.delete(node);
      const path: TreeNode[] = [];
      for (let at: TreeNode | null = node; at !== null; at = at.parent) path.push(at);
      path.reverse();
      const out = new Writer();
      const serials: number[] = [];
      out.push(path.length - 1);
      for (let k = 0; k + 1 < path.length; k++) {
        const via = path[k + 1]?.via;
        const at = path[k];
        if (via === null || via === undefined || at === undefined)
          throw new Error('internal error: a broken tree path');
        out.enabled(at.enabled);
        out.push(via.key);
        out.push(via.choice);
        serials.push(via.serial);
      }
      serials.push(branch.serial);
      out.push(1);
      out.enabled(node.enabled);
      out.push(w.key);
      out.push(w.choice);
      out.branches(sleep);
      out.push(node.threadCount);
      return { task: this.task(out.done(), w.children), path, serials, branch };
    }
  }

  private settle(root: TreeNode | null): void {
    if (root !== null) this.finished = true;
  }

  /**
   * A job's runs reported: the races they left to the owner are reversed and the branches
   * they offered here are added; the rest of the subtree, when the slice ended before it
   * was explored, joins the tree. Returns the job's last position (where to look for the
   * reporting worker's next job).
   */
  private apply(job: Job, r: DporSliceReport): TreeNode | null {
    this.count(r);
    const path = job.path;
    const serials = job.serials;
    const frontier = path[path.length - 1] ?? null;
    const branch = job.branch;
    if (branch !== null && r.frontierChoice >= 0) branch.choice = r.frontierChoice;
    for (const o of r.offers) {
      const node = path[o.position];
      if (node !== undefined && offerInTree(node, o.branch)) this.pending.add(node);
    }
    for (const e of r.escapes) {
      const events = new Reader(e.events).events();
      this.reverse(path, serials, new RunOrder({ events, clocks: e.clocks, width: e.width }));
    }
    if (r.rest === null) {
      // explored: what reached the branch while it ran is covered by its subtree (the
      // completeness of optimal DPOR at a finished branch, as for a leaf in insertInTree)
      if (branch === null || frontier === null) {
        this.finished = true;
        return null;
      }
      branch.held.length = 0;
      this.settle(branchDone(frontier, branch));
      return frontier;
    }
    let parent = frontier;
    let via = branch;
    const rest = new Reader(r.rest);
    const wuts = new Map(r.restWut.map((x) => [x.index, x.wut]));
    let last: TreeNode | null = null;
    for (let index = 0, n = rest.next(); index < n; index++) {
      const enabled = rest.enabled();
      const sleep = rest.branches();
      const explored = rest.branches();
      const key = rest.next();
      const choice = rest.next();
      const node = new TreeNode(parent, via, path.length, enabled, sleep, wuts.get(index) ?? [], rest.next());
      node.done.push(...explored);
      const e = node.enabledEvent(key);
      if (e === undefined) throw new Error('internal error: a run took a branch its position does not offer');
      const own: ActiveBranch = { key, choice, fp: e.fp, serial: this.serial++, child: null, guide: [], held: [] };
      node.active.push(own);
      if (via !== null) via.child = node;
      if (node.wut.length > 0) this.pending.add(node);
      path.push(node);
      serials.push(own.serial);
      parent = node;
      via = own;
      last = node;
    }
    const child = branch?.child ?? null;
    if (child !== null && branch !== null)
      for (const v of branch.held.splice(0)) this.inserted(insertInTree(child, v, -1));
    if (last === null || via === null) throw new Error('internal error: a subtree handed back with no positions');
    this.settle(branchDone(last, via));
    return last;
  }

  private inserted(node: TreeNode | null): void {
    if (node !== null) this.pending.add(node);
  }

  private reverse(path: readonly TreeNode[], serials: readonly number[], order: RunOrder): void {
    forEachReversal(order, (i, seq, first) => {
      const node = path[i];
      if (node === undefined) return;
      this.dpor.races++;
      if (node.enabledEvent(first.key) === undefined) {
        this.dpor.infeasible++;
        return;
      }
      const at = insertInTree(node, seq, serials[i] ?? -1);
      if (at !== null) {
        this.dpor.insertions++;
        this.pending.add(at);
      }
    });
  }

  private count(r: DporSliceReport): void {
    const stats = this.tally.stats;
    stats.stepsExecuted += r.eventsRun;
    stats.nodes += r.positionsMade;
    this.dpor.races += r.races;
    this.dpor.insertions += r.insertions;
    this.dpor.infeasible += r.infeasible;
    if (this.opts.countStates === true) for (const d of r.digests) this.states.add(d);
    for (const run of r.runs) {
      this.runs++;
      stats.maxChoices = Math.max(stats.maxChoices, run.choices.length);
      if (run.outcome === 'sleep') {
        this.tally.stopped('blocked');
        this.dpor.sleepBlocked++;
      } else {
        this.tally.schedule(subjectRunOf(run.outcome), run.choices);
      }
    }
  }
}
