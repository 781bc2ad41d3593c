/**
 * Stateless exhaustive search (the VeriSoft / CHESS / loom shape): every run starts from
 * the beginning and replays the tree's current path, so no state is ever saved; the
 * runtime's determinism makes the replayed prefix reach the same state.
 *
 * After each run the search backtracks: the deepest node with an eligible option left
 * moves to it, nodes with none left are dropped and their completeness (no pruning by
 * the bound below them) is handed to their parent, which decides whether they may sleep
 * in later siblings (explorer.ts).
 *
 * What it reports: schedules (runs that reached the end or a violation), sleep-blocked
 * runs (stopped because their continuation was covered by a sibling), steps, distinct
 * states (state_digest.ts, when asked), the tree's choice points, and whether the search
 * finished: `complete` means every schedule within the preemption bound was covered,
 * up to the independence relation of footprint.ts.
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import { ChoiceNode } from './choice_node.js';
import { ExplorerStrategy, SleepBlocked, type CacheEntry } from './explorer.js';
import { GLOBAL } from './footprint.js';
import type { Subject, SubjectRun } from './subject.js';

export interface SearchOptions {
  /** preemptions allowed per schedule; Infinity: none pruned */
  readonly preemptions: number;
  /** sleep sets on */
  readonly reduce: boolean;
  /** digest every state visited and count the distinct ones */
  readonly countStates?: boolean;
  /** prune a thread choice point whose state was explored before (state_digest.ts
   *  says how far a digest is a state; off by default) */
  readonly stateCache?: boolean;
  readonly maxSchedules?: number;
  readonly maxSeconds?: number;
  /** stop at the first violation (default); false: count every violating schedule */
  readonly stopOnViolation?: boolean;
  readonly onProgress?: (s: SearchStats) => void;
  /** every schedule that ran to its end (not sleep-blocked runs) */
  readonly onSchedule?: (r: SubjectRun) => void;
}

export interface FoundViolation {
  readonly property: PropertyId;
  readonly detail: string;
  /** the option taken at each choice point: replays with ChoicesStrategy */
  readonly choices: number[];
  readonly steps: number;
  /** schedules explored when it was first found */
  readonly atSchedule: number;
  readonly seconds: number;
}

export interface SearchStats {
  schedules: number;
  /** runs stopped because a sleeping sibling covers their continuation */
  blocked: number;
  /** runs stopped at a state explored before (state cache) */
  cached: number;
  steps: number;
  /** every step executed, replays and stopped runs included: the search's real work */
  stepsExecuted: number;
  /** choice points created (tree nodes) */
  nodes: number;
  states: number | null;
  seconds: number;
  maxChoices: number;
}

export interface SearchResult extends SearchStats {
  readonly preemptions: number;
  readonly reduce: boolean;
  readonly stateCache: boolean;
  /** every schedule within the bound was covered (no limit stopped the search) */
  readonly complete: boolean;
  /** why the search stopped early, if it did */
  readonly stoppedBy: 'violation' | 'schedules' | 'seconds' | null;
  /** first violation per property, in order found */
  readonly violations: FoundViolation[];
  readonly violatingSchedules: number;
}

export function search(subject: Subject, opts: SearchOptions): SearchResult {
  const stack: ChoiceNode[] = [];
  const states = opts.countStates === true ? new Set<number>() : null;
  const cache = opts.stateCache === true ? new Map<number, CacheEntry[]>() : null;
  const stats: SearchStats = { schedules: 0, blocked: 0, cached: 0, steps: 0, stepsExecuted: 0, nodes: 0, states: null, seconds: 0, maxChoices: 0 };
  const violations: FoundViolation[] = [];
  let violatingSchedules = 0;
  let stoppedBy: SearchResult['stoppedBy'] = null;
  const started = performance.now();
  const deadline = opts.maxSeconds !== undefined ? started + opts.maxSeconds * 1000 : Infinity;
  const maxSchedules = opts.maxSchedules ?? Infinity;
  const stopOnViolation = opts.stopOnViolation !== false;
  for (let run = 0; ; run++) {
    const strategy = new ExplorerStrategy(stack, { preemptions: opts.preemptions, reduce: opts.reduce, checks: subject.checks, states, cache });
    const outcome = runOnce(subject, strategy);
    stats.nodes += strategy.added;
    stats.stepsExecuted += strategy.stepsTaken;
    stats.maxChoices = Math.max(stats.maxChoices, strategy.path.length);
    if (outcome === 'sleep') {
      stats.blocked++;
    } else if (outcome === 'cached') {
      stats.cached++;
    } else {
      stats.schedules++;
      stats.steps += outcome.steps;
      opts.onSchedule?.(outcome);
      const v = outcome.violation;
      if (v !== null) {
        violatingSchedules++;
        if (!violations.some((f) => f.property === v.property)) {
          violations.push({
            property: v.property,
            detail: v.detail,
            choices: [...strategy.path],
            steps: outcome.steps,
            atSchedule: stats.schedules,
            seconds: (performance.now() - started) / 1000,
          });
        }
        if (stopOnViolation) stoppedBy = 'violation';
      }
    }
    if (!backtrack(stack)) break;
    if (stoppedBy === null && stats.schedules >= maxSchedules) stoppedBy = 'schedules';
    if (stoppedBy === null && (run & 15) === 15 && performance.now() > deadline) stoppedBy = 'seconds';
    if (stoppedBy !== null) break;
    if ((run & 1023) === 1023 && opts.onProgress !== undefined) {
      stats.seconds = (performance.now() - started) / 1000;
      stats.states = states?.size ?? null;
      opts.onProgress(stats);
    }
  }
  stats.seconds = (performance.now() - started) / 1000;
  stats.states = states?.size ?? null;
  return {
    ...stats,
    preemptions: opts.preemptions,
    reduce: opts.reduce,
    stateCache: opts.stateCache === true,
    complete: stoppedBy === null,
    stoppedBy,
    violations,
    violatingSchedules,
  };
}

/** One run, or why it stopped early. */
function runOnce(subject: Subject, strategy: ExplorerStrategy): SubjectRun | 'sleep' | 'cached' {
  try {
    const r = strategy.needsState ? subject.run(strategy, (a) => strategy.attach(a)) : subject.run(strategy);
    strategy.finish();
    return r;
  } catch (e) {
    if (e instanceof SleepBlocked) return e.why;
    throw e;
  }
}

/** Moves the tree to its next path; false when the whole tree has been explored. */
function backtrack(stack: ChoiceNode[]): boolean {
  for (;;) {
    const node = stack[stack.length - 1];
    if (node === undefined) return false;
    const option = node.chosen;
    node.explored.push({
      option,
      key: node.keys[option] ?? -1,
      cost: node.costs[option] ?? 0,
      // a step that never ran (the run ended first) is taken as touching everything
      fp: node.chosenFp ?? GLOBAL,
      complete: node.childComplete,
    });
    node.cursor++;
    if (node.cursor < node.eligible.length) {
      node.childComplete = true;
      node.chosenFp = null;
      return true;
    }
    stack.pop();
    const parent = stack[stack.length - 1];
    if (parent !== undefined && !node.complete) parent.childComplete = false;
  }
}
