/**
 * One run of a DPOR search whose tree lives in another thread (dpor_parallel.ts): the
 * worker's side. The task names the path to replay (each position's enabled events and
 * the branch taken), the frontier's new branch with its wakeup subtree, and the sleep set
 * a branch started there has; the run goes on past the frontier as in the one-thread
 * search (dpor_strategy.ts: wakeup subtree first, then the quiet option unless asleep).
 *
 * What comes back is plain data: the outcome, the choices that replay it, the positions
 * created past the frontier, what the run offered at replayed positions (spurious
 * wakeups it disabled, a signal's other waiters), the run's happens-before (races are
 * reversed by the tree's owner) and the state digests it saw.
 *
 * Invariant: a task runs the same way in any thread; the worker keeps nothing between
 * tasks but its subject (built from the first task's spec) and the compiled thread code.
 */
import { DporStrategy, RunStopped, type DporRunConfig } from './dpor_strategy.js';
import { DporNode } from './dpor_node.js';
import type { Subject, SubjectRun } from './subject.js';
import type { Branch, WakeupNode } from './wakeup_tree.js';
import { Reader, Writer } from './dpor_wire.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import type { PropertyId } from '../../src/check/catalogue.js';
import { Violation } from '../../src/check/violation.js';

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
   * dpor_wire.ts lists: the replayed positions (count, then per position its enabled
   * events, the key and choice taken), then a 0/1 flag for a frontier, and for it its
   * enabled events, the new branch's key and choice, the sleep set a branch started
   * there has, its thread count. No frontier: the first run, which starts with no tree.
   */
  readonly positions: Int32Array;
  /** the wakeup subtree the frontier's new branch carries */
  readonly guide: readonly WakeupNode[];
}

/** A run's outcome as plain data (a Violation is an Error, which a thread boundary strips). */
export interface PlainOutcome {
  readonly violation: { readonly property: PropertyId; readonly detail: string } | null;
  readonly steps: number;
  readonly coverage?: ReadonlySet<string>;
}

export interface DporRunReport {
  /** the run's outcome; 'sleep': every event asleep at the next position */
  readonly outcome: PlainOutcome | 'sleep';
  readonly choices: number[];
  readonly eventsRun: number;
  /**
   * The positions created past the frontier: count, then per position its enabled
   * events, arrival sleep set, the branch taken (key, choice) and thread count.
   */
  readonly fresh: Int32Array;
  /** the pending wakeup trees of fresh positions that have one, by index among them */
  readonly freshWut: { readonly index: number; readonly wut: WakeupNode[] }[];
  /** branches the run offered at replayed positions (the frontier included), by position */
  readonly offers: { readonly position: number; readonly branch: Branch }[];
  /** the run's events (dpor_wire.ts) and their clocks, `width` entries each */
  readonly events: Int32Array;
  readonly clocks: Int32Array;
  readonly width: number;
  readonly digests: Float64Array;
}

/** the subject being built or built (set by the first task, before it waits, so later tasks find it) */
let subject: Promise<Subject> | null = null;

export async function runDporTask(task: DporTask): Promise<DporRunReport> {
  if (task.subject !== undefined) subject = buildSubject(task.subject);
  if (subject === null) throw new Error('internal error: a DPOR task before its subject');
  return runTask(await subject, task);
}

async function buildSubject(spec: SubjectSpec): Promise<Subject> {
  const m = (await import(spec.module)) as Record<string, unknown>;
  const fn = m[spec.fn];
  if (typeof fn !== 'function') throw new Error(`${spec.module} exports no function '${spec.fn}'`);
  return (fn as (a: unknown) => Subject)(spec.arg);
}

function runTask(subject: Subject, task: DporTask): DporRunReport {
  const stack = replayedStack(task);
  const replayed = stack.length;
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
  const hasFrontier = replayed > 0;
  const strategy = new DporStrategy(stack, hasFrontier ? replayed - 1 : -1, cfg);
  let outcome: SubjectRun | 'sleep';
  try {
    outcome = strategy.needsState ? subject.run(strategy, (a) => strategy.attach(a)) : subject.run(strategy);
    strategy.finish();
  } catch (e) {
    if (!(e instanceof RunStopped) || e.why !== 'sleep') throw e;
    outcome = 'sleep';
  }
  const offers: DporRunReport['offers'] = [];
  stack.slice(0, replayed).forEach((n, position) => {
    for (const w of n.wut) offers.push({ position, branch: { key: w.key, choice: w.choice, fp: w.fp } });
  });
  const fresh = new Writer();
  const freshWut: DporRunReport['freshWut'] = [];
  const created = stack.slice(replayed);
  fresh.push(created.length);
  created.forEach((n, index) => {
    fresh.enabled(n.enabled);
    fresh.branches(n.sleep);
    fresh.push(n.chosen.key);
    fresh.push(n.chosen.choice);
    fresh.push(n.threadCount);
    if (n.wut.length > 0) freshWut.push({ index, wut: n.wut });
  });
  const events = new Writer();
  events.events(strategy.hb.events);
  const order = strategy.hb.snapshot();
  return {
    outcome: outcome === 'sleep' ? outcome : plainOutcome(outcome),
    choices: strategy.path,
    eventsRun: strategy.eventsRun,
    fresh: fresh.done(),
    freshWut,
    offers,
    events: events.done(),
    clocks: order.clocks,
    width: order.width,
    digests: Float64Array.from(states),
  };
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
