/**
 * Exhaustive search with optimal dynamic partial-order reduction (Abdulla, Aronis,
 * Jonsson, Sagonas, POPL 2014 / JACM 2017: source sets and wakeup trees). A run reaches
 * the frontier either by replaying the current path from the start, or (a subject whose
 * threads are resumable; by default with the state cache) by writing back a state saved
 * on the path at or below the frontier and going on from it (restore/): the same run,
 * fewer steps.
 *
 * After each run, every race of its happens-before (happens_before.ts) is reversed: for
 * a race e < e', the wakeup sequence notdep(e).e' (the events after e that do not depend
 * on e, then e') is inserted at e's position unless the sleep set there covers it
 * (wakeup_tree.ts). A run that ends in a violation also offers every other event enabled
 * before its last step (a violation ends the run, so it conflicts with whatever could have
 * gone first). Then the search backtracks to the deepest position with a branch left.
 * Without a bound this explores exactly one schedule per Mazurkiewicz trace of the
 * dependence relation (dependence.ts), and never a sleep-blocked run.
 *
 * With a preemption bound (Coons, Musuvathi, McKinley, OOPSLA 2013: bounding alone is
 * unsound with DPOR), each reversal also backtracks the racing thread at the last context
 * switch before the race (BPOR's conservative point, as loom does), and a sleeping or
 * explored branch stops covering its siblings as soon as the bound cut anything below it.
 *
 * What it reports: schedules (runs to the end or to a violation), stopped runs (asleep,
 * or over the bound), steps, events executed, tree positions, violations, and whether the
 * search finished (`complete`: no limit stopped it).
 */
import type { Subject } from '../subject.js';
import { SavedStates } from '../state/restore/saved_states.js';
import type { DporRunConfig } from './strategy.js';
import { Runs } from './runs.js';
import type { DporNode } from './node.js';
import type { EventOrder, HappensBefore, RunEvent } from './happens_before.js';
import { insertSequence, insertSingle, WakeupSequence } from './wakeup_tree.js';
import { mergeSummary, StateCache, summaryBits } from './cache.js';
import { ShardSplit } from './shard.js';
import type { SearchOptions, SearchResult } from '../search_types.js';
import { SearchTally } from '../search_tally.js';
import { DEFAULT_LIMITS } from '../../../src/check/limits.js';

export interface DporStats {
  /** branches offered by the state cache's summaries (full expansions) */
  expansions: number;
  /** races reversed (wakeup sequences offered) and how many added a branch */
  races: number;
  insertions: number;
  /** races whose reversal starts with an event not enabled there (must stay 0) */
  infeasible: number;
  /** runs stopped with every event asleep (optimal DPOR: 0 without a bound) */
  sleepBlocked: number;
  /** runs stopped because every option left was over the preemption bound */
  boundStopped: number;
}

/** What going on from saved states cost (restore/saved_states.ts). */
export interface RestoreStats {
  readonly saves: number;
  /** positions whose state could not be saved (the search replayed to them) */
  readonly failures: number;
  readonly lastFailure: string | null;
  readonly objectsSaved: number;
}

export interface DporSearchResult extends SearchResult {
  readonly dpor: DporStats;
  /** null: every run replayed from the start */
  readonly restore: RestoreStats | null;
}

export function dporSearch(subject: Subject, opts: SearchOptions): DporSearchResult {
  const stack: DporNode[] = [];
  const bounded = Number.isFinite(opts.preemptions);
  const states = opts.countStates === true ? new Set<number>() : null;
  const cache = opts.stateCache === true ? new StateCache(bounded) : null;
  const opaque = new Set<object>([stack]);
  // by default with the cache only: without it a run goes on far past its frontier, and
  // saving costs more than the replay it spares (bench: 7.8 s against 7.2 s stateless)
  const restoring = opts.restore ?? opts.stateCache === true;
  const saves = restoring && subject.open !== undefined ? new SavedStates(opaque) : null;
  const cfg: DporRunConfig = {
    preemptions: opts.preemptions,
    checks: subject.checks,
    maxThreads: DEFAULT_LIMITS.maxThreads,
    spuriousWakeups: subject.spuriousWakeups ?? 0,
    states,
    cache,
    saves,
  };
  opaque.add(cfg);
  const tally = new SearchTally(opts, states);
  const stats = tally.stats;
  const dpor: DporStats = { expansions: 0, races: 0, insertions: 0, infeasible: 0, sleepBlocked: 0, boundStopped: 0 };
  const split = new ShardSplit(opts.shard ?? { index: 0, count: 1 });
  let frontier = -1;
  const runs = new Runs(subject, stack, cfg);
  for (let run = 0; ; run++) {
    const before = stack.length;
    const { strategy, outcome, eventsRun, expansions } = runs.next(frontier);
    stats.nodes += Math.max(0, stack.length - Math.max(before, frontier + 1));
    stats.stepsExecuted += eventsRun;
    stats.maxChoices = Math.max(stats.maxChoices, strategy.path.length);
    if (stack.length !== strategy.hb.length)
      throw new Error(`internal error: ${stack.length} positions for ${strategy.hb.length} events`);
    if (outcome === 'cached') {
      tally.stopped('cached');
    } else if (outcome === 'sleep' || outcome === 'bound') {
      tally.stopped('blocked');
      if (outcome === 'sleep') dpor.sleepBlocked++;
      else dpor.boundStopped++;
    } else {
      tally.schedule(outcome, strategy.path);
      if (outcome.violation !== null) offerAlternatives(stack);
    }
    reverseRaces(stack, strategy.hb, bounded, dpor, split);
    dpor.expansions += expansions;
    split.consider(stack);
    frontier = backtrack(stack, cfg.maxThreads, split, bounded);
    if (frontier < 0 || tally.limitReached(run)) break;
  }
  const restore =
    saves === null
      ? null
      : {
          saves: saves.saves,
          failures: saves.failures,
          lastFailure: saves.lastFailure,
          objectsSaved: saves.objectsSaved,
        };
  return { ...tally.result(true, cache !== null), dpor, restore };
}

/**
 * Every race e < e' of the run: insert notdep(e).e' at e's position. Under a bound, also
 * backtrack e''s thread at the last context switch before e. A race whose e lies at or
 * above `floor` is left alone (another thread owns those positions: dpor/run_task.ts);
 * returns whether there was one.
 */
export function reverseRaces(
  stack: DporNode[],
  hb: HappensBefore,
  bounded: boolean,
  stats: DporStats,
  split: ShardSplit,
  floor = -1,
): boolean {
  let above = false;
  forEachReversal(hb, (i, seq, first, later) => {
    const node = stack[i];
    if (node === undefined) return;
    if (i <= floor) {
      above = true;
      return;
    }
    stats.races++;
    if (node.enabledEvent(first.key) === undefined) {
      stats.infeasible++;
      return;
    }
    if (insertSequence(node.wut, node.sleepSet(), seq, (w) => split.isForeign(w))) stats.insertions++;
    if (!bounded) return;
    backtrackAtLastSwitch(stack, hb, i, later.key);
    // a spurious wakeup costs no preemption: it can go at e's place by itself even where
    // the events before it in the reversal would preempt (and be cut by the bound)
    const wakeup = (later.key & 1) === 1 ? node.enabledEvent(later.key) : undefined;
    if (wakeup !== undefined) insertSingle(node.wut, node.sleepSet(), { key: wakeup.key, choice: -1, fp: wakeup.fp });
  });
  return above;
}

/**
 * Calls `visit` for every race e < e' of a finished run with e's position, the wakeup
 * sequence notdep(e).e' (the events after e not ordered after it, then e'), its first
 * event and e'.
 */
export function forEachReversal(
  hb: EventOrder,
  visit: (i: number, seq: WakeupSequence, first: RunEvent, later: RunEvent) => void,
): void {
  const events = hb.events;
  const n = events.length;
  for (let j = 0; j < n; j++) {
    const later = events[j];
    if (later === undefined) continue;
    for (const i of later.races) {
      const earlier = events[i];
      if (earlier === undefined) continue;
      const items: number[] = [];
      for (let k = i + 1; k < n; k++) {
        if (k === j) continue;
        const ev = events[k];
        if (ev !== undefined && hb.clockAt(k, earlier.tid) < earlier.seq) items.push(k);
      }
      items.push(j);
      const first = events[items[0] ?? -1];
      if (first !== undefined) visit(i, new WakeupSequence(hb, items), first, later);
    }
  }
}

/** BPOR's conservative backtrack point: where the thread running before position i last took over. */
function backtrackAtLastSwitch(stack: DporNode[], hb: HappensBefore, i: number, key: number): void {
  let k = i - 1;
  while (k > 0 && hb.events[k]?.tid === hb.events[k - 1]?.tid) k--;
  const node = stack[Math.max(0, k)];
  if (node === undefined) return;
  // the racing event itself: its thread's step, or its spurious wakeup
  const own = node.enabledEvent(key);
  const sleep = node.sleepSet();
  if (own !== undefined) {
    insertSingle(node.wut, sleep, { key: own.key, choice: -1, fp: own.fp });
    return;
  }
  for (const e of node.enabled) insertSingle(node.wut, sleep, { key: e.key, choice: -1, fp: e.fp });
}

/** A violation ends the run: every other event enabled before its last step could go first. */
export function offerAlternatives(stack: DporNode[]): void {
  const node = stack[stack.length - 1];
  if (node === undefined) return;
  const sleep = node.sleepSet();
  for (const e of node.enabled) {
    if (e.key !== node.chosen.key) insertSingle(node.wut, sleep, { key: e.key, choice: -1, fp: e.fp });
  }
}

/**
 * Finishes the chosen branch of the deepest position and moves it to its next branch;
 * positions with none left are dropped. Returns the new frontier, or -1 when done: when
 * no position below `floor` has a branch left (the positions at and above it are another
 * thread's, dpor/run_task.ts).
 */
export function backtrack(
  stack: DporNode[],
  maxThreads: number,
  split: ShardSplit,
  bounded: boolean,
  floor = -1,
): number {
  for (;;) {
    const top = stack.length - 1;
    const node = stack[top];
    if (node === undefined || top <= floor) return -1;
    const fp = node.enabledEvent(node.chosen.key)?.fp;
    if (fp === undefined) throw new Error('internal error: chosen branch not enabled');
    if (node.entry !== null) {
      node.summary ??= new Int32Array(maxThreads);
      const tid = node.chosen.key >> 1;
      node.summary[tid] = (node.summary[tid] ?? 0) | summaryBits(fp);
    }
    node.done.push({ key: node.chosen.key, choice: node.chosen.choice, fp, complete: !node.cut });
    if (node.cut) node.incomplete = true;
    node.cut = false;
    node.guide = [];
    while (node.wut.length > 0) {
      const w = node.wut.shift();
      if (w === undefined) break;
      const e = node.enabledEvent(w.key);
      if (e === undefined) throw new Error(`internal error: wakeup branch ${w.key} is not enabled at position ${top}`);
      if (split.isForeign(w)) {
        // another part explores it: explored, as far as the sleep sets here go
        node.done.push({ key: w.key, choice: w.choice, fp: e.fp, complete: !bounded });
        node.sharded = true;
        continue;
      }
      // an exact repeat of an explored branch with nothing below it adds nothing, even one
      // the bound cut: the position's budget is the same, and its sleep set only grew, so
      // the repeat would explore a part of what the first time explored (re-exploring it
      // looped forever under a bound: the repeat found the race that inserted it again)
      if (w.children.length === 0 && node.done.some((d) => d.key === w.key && d.choice === w.choice)) continue;
      if (e.preempts && node.budget < 1) {
        node.incomplete = true;
        continue;
      }
      node.chosen = { key: w.key, choice: w.choice };
      node.guide = w.children;
      return top;
    }
    stack.pop();
    const parent = stack[top - 1];
    if (parent !== undefined && node.incomplete) parent.cut = true;
    if (parent !== undefined && node.sharded) parent.sharded = true;
    if (node.entry !== null) {
      // the position is finished: its entry may prune from now on, its summary counts above
      const summary = node.summary ?? new Int32Array(maxThreads);
      node.entry.summary = summary;
      node.entry.complete = !node.incomplete && !node.sharded;
      if (parent !== undefined) {
        parent.summary ??= new Int32Array(maxThreads);
        mergeSummary(parent.summary, summary, parent.threadCount, parent.chosen.key >> 1);
      }
    }
  }
}
