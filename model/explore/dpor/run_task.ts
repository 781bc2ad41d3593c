/**
 * The runs of a DPOR search whose tree lives in another thread (dpor/parallel.ts): the
 * worker's side. A task names the path to replay (each position's enabled events and the
 * branch taken), the frontier's new branch with its wakeup subtree, and the sleep set a
 * branch started there has. The worker then owns that branch's subtree: it runs the
 * one-thread search in it (dpor/search.ts: races reversed at the subtree's positions,
 * backtracking to its deepest position with a branch left) for a time slice, so that a
 * run never waits for a message. What belongs to the owner of the tree comes back: races
 * whose reversal lands at or above the frontier (the run's order, for the owner to
 * reverse), branches offered there, each run's outcome, the state digests, and, when the
 * slice ended first, the subtree's path as it stands (its positions' explored and pending
 * branches), which the owner takes over and hands out again.
 *
 * Invariant: a task runs the same way in any thread; the worker keeps nothing between
 * tasks but its subject (built from the first task's spec) and the compiled thread code.
 */
import { DporNode } from './node.js';
import type { DporRunConfig, DporStrategy } from './strategy.js';
import { backtrack, offerAlternatives, reverseRaces, type DporStats } from './search.js';
import { Runs, type RunEnd } from './runs.js';
import { ShardSplit } from './shard.js';
import type { Subject, SubjectRun } from '../subject.js';
import type { Branch, WakeupNode } from './wakeup_tree.js';
import { Reader, Writer } from './wire.js';
import { DEFAULT_LIMITS } from '../../../src/check/limits.js';
import type { PropertyId } from '../../../src/check/catalogue.js';
import type { CoverageMark } from '../../../src/check/checkers/coverage.js';
import { Violation } from '../../../src/check/violation.js';

/**
 * How a worker builds the subject it runs: an exported function of a module, called
 * with a plain-data argument (for the tier: subject.ts's scenarioSubject and a scenario).
 */
export interface SubjectSpec {
  readonly module: string;
  readonly fn: string;
  readonly arg: unknown;
}

export interface DporTask {
  /** given with a worker's first task only (a worker explores one subject) */
  readonly subject?: SubjectSpec;
  /**
   * dpor/wire.ts lists: the replayed positions (count, then per position its enabled
   * events, the key and choice taken), then a 0/1 flag for a frontier, and for it its
   * enabled events, the new branch's key and choice, the sleep set a branch started
   * there has, its thread count. No frontier: the first run, which starts with no tree.
   */
  readonly positions: Int32Array;
  /** the wakeup subtree the frontier's new branch carries */
  readonly guide: readonly WakeupNode[];
  /** the runs the worker may make before it hands the rest of the subtree back */
  readonly maxRuns: number;
  /** milliseconds of runs after which it hands the rest back (it makes one run at least) */
  readonly sliceMs: number;
  /** the search's end on the wall clock (Date.now()): no run starts after it */
  readonly deadline: number;
  /** a violation ends the slice */
  readonly stopOnViolation: boolean;
}

/** A run's outcome as plain data (a Violation is an Error, which a thread boundary strips). */
export interface PlainOutcome {
  readonly violation: { readonly property: PropertyId; readonly detail: string } | null;
  readonly steps: number;
  readonly coverage?: ReadonlySet<CoverageMark>;
}

/** A run's order as plain data: its events (dpor/wire.ts) and their clocks, `width` entries each. */
export interface WireOrder {
  readonly events: Int32Array;
  readonly clocks: Int32Array;
  readonly width: number;
}

export interface DporSliceReport {
  /** each run's outcome ('sleep': every event asleep at the next position) and choices */
  readonly runs: { readonly outcome: PlainOutcome | 'sleep'; readonly choices: number[] }[];
  readonly eventsRun: number;
  /** positions created (the one-thread search's `nodes`) */
  readonly positionsMade: number;
  /** the waiter the first run chose at the frontier's signal (-1: none chosen there) */
  readonly frontierChoice: number;
  /** branches the runs offered at the task's positions (the frontier included), by position */
  readonly offers: { readonly position: number; readonly branch: Branch }[];
  /** the order of every run with a race whose reversal lands at the task's positions */
  readonly escapes: WireOrder[];
  /** races reversed inside the subtree, and how many added a branch there */
  readonly races: number;
  readonly insertions: number;
  readonly infeasible: number;
  /**
   * null: the subtree is explored. Else its path below the frontier as the last run left
   * it: count, then per position its enabled events, arrival sleep set, explored branches,
   * the branch the last run took (key, choice) and thread count.
   */
  readonly rest: Int32Array | null;
  /** the pending wakeup trees of `rest`'s positions that have one, by index among them */
  readonly restWut: { readonly index: number; readonly wut: WakeupNode[] }[];
  readonly digests: Float64Array;
}

/** the subject being built or built (set by the first task, before it waits, so later tasks find it) */
let subject: Promise<Subject> | null = null;

export async function runDporSlice(task: DporTask): Promise<DporSliceReport> {
  if (task.subject !== undefined) subject = buildSubject(task.subject);
  if (subject === null) throw new Error('internal error: a DPOR task before its subject');
  return runSlice(await subject, task);
}

async function buildSubject(spec: SubjectSpec): Promise<Subject> {
  const m = (await import(spec.module)) as Record<string, unknown>;
  const fn = m[spec.fn];
  if (typeof fn !== 'function') throw new Error(`${spec.module} exports no function '${spec.fn}'`);
  return (fn as (a: unknown) => Subject)(spec.arg);
}

/** no part of a search on threads is split further (dpor/shard.ts) */
const WHOLE = new ShardSplit({ index: 0, count: 1 });

function runSlice(subject: Subject, task: DporTask): DporSliceReport {
  const started = performance.now();
  const stack = replayedStack(task);
  const states = new Set<number>();
  const cfg: DporRunConfig = {
    preemptions: Infinity,
    checks: subject.checks,
    maxThreads: DEFAULT_LIMITS.maxThreads,
    spuriousWakeups: subject.spuriousWakeups ?? 0,
    states,
    cache: null,
    saves: null,
  };
  const runs = new Runs(subject, stack, cfg);
  // positions 0..floor are the owner's (the frontier last); the subtree below is this task's
  const slice = new SliceReport(stack, stack.length - 1);
  for (let frontier = slice.floor; ; ) {
    const before = stack.length;
    const { strategy, outcome, eventsRun } = runs.next(frontier);
    const violated = slice.add(strategy, outcome, eventsRun, stack.length - Math.max(before, frontier + 1));
    const stop =
      slice.runs.length >= task.maxRuns ||
      performance.now() - started >= task.sliceMs ||
      Date.now() >= task.deadline ||
      (violated && task.stopOnViolation);
    const rest = stop ? restOf(stack, slice.floor) : null;
    if (rest === null) frontier = backtrack(stack, cfg.maxThreads, WHOLE, false, slice.floor);
    if (rest !== null || frontier < 0) return slice.report(rest, states);
  }
}

/** What a slice's runs leave for the tree's owner, gathered run by run. */
class SliceReport {
  readonly runs: DporSliceReport['runs'] = [];
  private readonly offers: DporSliceReport['offers'] = [];
  private readonly escapes: WireOrder[] = [];
  private readonly stats: DporStats = {
    expansions: 0,
    races: 0,
    insertions: 0,
    infeasible: 0,
    sleepBlocked: 0,
    boundStopped: 0,
  };
  private eventsRun = 0;
  private positionsMade = 0;
  private frontierChoice = -1;

  constructor(
    private readonly stack: DporNode[],
    readonly floor: number,
  ) {}

  /** a run ended: its outcome, its races reversed (here or left to the owner); whether it violated */
  add(strategy: DporStrategy, outcome: RunEnd, eventsRun: number, made: number): boolean {
    const { stack, floor } = this;
    this.eventsRun += eventsRun;
    this.positionsMade += Math.max(0, made);
    if (this.runs.length === 0 && floor >= 0) this.frontierChoice = strategy.hb.events[floor]?.choice ?? -1;
    if (outcome === 'cached' || outcome === 'bound')
      throw new Error(`internal error: a run of the search on threads stopped as '${outcome}'`);
    this.runs.push({ outcome: outcome === 'sleep' ? outcome : plainOutcome(outcome), choices: strategy.path });
    const violated = outcome !== 'sleep' && outcome.violation !== null;
    if (violated) offerAlternatives(stack);
    if (reverseRaces(stack, strategy.hb, false, this.stats, WHOLE, floor)) {
      const events = new Writer();
      events.events(strategy.hb.events);
      const order = strategy.hb.snapshot();
      this.escapes.push({ events: events.done(), clocks: order.clocks, width: order.width });
    }
    // what the run offered at the owner's positions is the owner's to explore
    for (let p = 0; p <= floor; p++) {
      const node = stack[p];
      if (node === undefined) continue;
      for (const w of node.wut) this.offers.push({ position: p, branch: { key: w.key, choice: w.choice, fp: w.fp } });
      node.wut = [];
    }
    return violated;
  }

  report(rest: ReturnType<typeof restOf>, states: ReadonlySet<number>): DporSliceReport {
    return {
      runs: this.runs,
      eventsRun: this.eventsRun,
      positionsMade: this.positionsMade,
      frontierChoice: this.frontierChoice,
      offers: this.offers,
      escapes: this.escapes,
      races: this.stats.races,
      insertions: this.stats.insertions,
      infeasible: this.stats.infeasible,
      rest: rest?.path ?? null,
      restWut: rest?.wut ?? [],
      digests: Float64Array.from(states),
    };
  }
}

/** the subtree's path below the floor as the last run left it (null: nothing there) */
function restOf(
  stack: readonly DporNode[],
  floor: number,
): { path: Int32Array; wut: DporSliceReport['restWut'] } | null {
  const below = stack.slice(floor + 1);
  if (below.length === 0) return null;
  const out = new Writer();
  const wut: DporSliceReport['restWut'] = [];
  out.push(below.length);
  below.forEach((n, index) => {
    out.enabled(n.enabled);
    out.branches(n.sleep);
    out.branches(n.done);
    out.push(n.chosen.key);
    out.push(n.chosen.choice);
    out.push(n.threadCount);
    if (n.wut.length > 0) wut.push({ index, wut: n.wut });
  });
  return { path: out.done(), wut };
}

function plainOutcome(r: SubjectRun): PlainOutcome {
  const v = r.violation;
  return {
    violation: v === null ? null : { property: v.property, detail: v.detail },
    steps: r.steps,
    ...(r.coverage !== undefined ? { coverage: r.coverage } : {}),
  };
}

/** The outcome back as the run gave it. */
export function subjectRunOf(o: PlainOutcome): SubjectRun {
  return {
    violation: o.violation === null ? null : new Violation(o.violation.property, o.violation.detail),
    steps: o.steps,
    ...(o.coverage !== undefined ? { coverage: o.coverage } : {}),
  };
}

/** the task's positions as tree nodes the strategy replays (the frontier's last) */
function replayedStack(task: DporTask): DporNode[] {
  const r = new Reader(task.positions);
  const stack: DporNode[] = [];
  for (let n = r.next(); n > 0; n--) {
    const node = new DporNode(r.enabled(), [], Infinity, -1);
    node.chosen.key = r.next();
    node.chosen.choice = r.next();
    stack.push(node);
  }
  if (r.next() === 1) {
    const enabled = r.enabled();
    const key = r.next();
    const choice = r.next();
    const node = new DporNode(enabled, r.branches(), Infinity, key);
    node.chosen.choice = choice;
    node.threadCount = r.next();
    node.guide = [...task.guide];
    stack.push(node);
  }
  return stack;
}
