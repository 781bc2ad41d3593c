/**
 * What an exhaustive search is asked for and what it reports, shared by the sleep-set
 * search (search.ts) and the DPOR search (dpor/search.ts).
 *
 * Invariant: a result claims `complete` only when no limit stopped the search.
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import type { SubjectRun } from './subject.js';

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
  /** DPOR only: explore one part of the tree (dpor/shard.ts); the parts together cover it */
  readonly shard?: Shard;
  /** keep the distinct state digests in the result (to join shards' counts) */
  readonly keepStates?: boolean;
  /** DPOR only: go on from states saved along the path instead of replaying from the
   *  start (restore/; subjects that can, the engine's threads; default: with stateCache) */
  readonly restore?: boolean;
}

/** Part `index` of `count` (0-based). */
export interface Shard {
  readonly index: number;
  readonly count: number;
  /** split once the tree holds this many pending branches per part (default 4) */
  readonly splitAt?: number;
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
  /** the distinct state digests, when asked (keepStates) */
  readonly stateDigests?: number[];
}
