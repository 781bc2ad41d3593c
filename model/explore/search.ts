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
import type { ChoiceNode } from './choice_node.js';
import { ExplorerStrategy, SleepBlocked, type CacheEntry } from './explorer.js';
import { GLOBAL } from './footprint.js';
import type { Subject, SubjectRun } from './subject.js';
import type { SearchOptions, SearchResult } from './search_types.js';
import { SearchTally } from './search_tally.js';

export type { FoundViolation, SearchOptions, SearchResult, SearchStats } from './search_types.js';

export function search(subject: Subject, opts: SearchOptions): SearchResult {
  const stack: ChoiceNode[] = [];
  const states = opts.countStates === true ? new Set<number>() : null;
  const cache = opts.stateCache === true ? new Map<number, CacheEntry[]>() : null;
  const tally = new SearchTally(opts, states);
  const stats = tally.stats;
  for (let run = 0; ; run++) {
    const strategy = new ExplorerStrategy(stack, {
      preemptions: opts.preemptions,
      reduce: opts.reduce,
      checks: subject.checks,
      states,
      cache,
    });
    const outcome = runOnce(subject, strategy);
    stats.nodes += strategy.added;
    stats.stepsExecuted += strategy.stepsTaken;
    stats.maxChoices = Math.max(stats.maxChoices, strategy.path.length);
    if (outcome === 'sleep') tally.stopped('blocked');
    else if (outcome === 'cached') tally.stopped('cached');
    else tally.schedule(outcome, strategy.path);
    if (!backtrack(stack) || tally.limitReached(run)) break;
  }
  return tally.result(opts.reduce, opts.stateCache === true);
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
