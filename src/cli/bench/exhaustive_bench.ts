/**
 * Exhaustive search of the small configuration (properties/scenarios/small-warmstart.json) in the
 * configurations the benchmark reports: plain DFS and sleep sets within a preemption
 * bound (the reduction factor is schedules(plain) / schedules(reduced) on the same
 * bound), and the whole space, unbounded, with the state cache.
 *
 * Invariants: every configuration counts distinct states the same way (state_digest.ts),
 * so the state counts agree whenever both searches complete; a limit that stops a search
 * is reported as incomplete, never as a result.
 */
import { search, type SearchResult } from '../../../model/explore/search.js';
import { scenarioSubject } from '../../../model/explore/subject.js';
import type { Scenario } from '../../../model/scenario/scenario.js';

export interface ExhaustiveRow {
  readonly label: string;
  readonly preemptions: number | null;
  readonly reduction: boolean;
  readonly stateCache: boolean;
  readonly complete: boolean;
  readonly schedules: number;
  readonly sleepBlocked: number;
  readonly cachedStops: number;
  readonly states: number | null;
  readonly stepsExecuted: number;
  readonly seconds: number;
  readonly stepsPerSecond: number;
  readonly statesPerSecond: number | null;
  readonly violations: string[];
}

export interface ExhaustiveConfig {
  readonly label: string;
  readonly preemptions: number;
  readonly reduce: boolean;
  readonly stateCache: boolean;
}

export const SMALL_CONFIGS: readonly ExhaustiveConfig[] = [
  { label: 'plain DFS, <= 2 preemptions', preemptions: 2, reduce: false, stateCache: false },
  { label: 'sleep sets, <= 2 preemptions', preemptions: 2, reduce: true, stateCache: false },
  { label: 'plain DFS + state cache, unbounded', preemptions: Infinity, reduce: false, stateCache: true },
  { label: 'sleep sets + state cache, unbounded', preemptions: Infinity, reduce: true, stateCache: true },
];

export function exploreRow(s: Scenario, c: ExhaustiveConfig, maxSeconds: number): ExhaustiveRow {
  const r: SearchResult = search(scenarioSubject(s), {
    preemptions: c.preemptions,
    reduce: c.reduce,
    stateCache: c.stateCache,
    countStates: true,
    maxSeconds,
    stopOnViolation: false,
  });
  return {
    label: c.label,
    preemptions: Number.isFinite(c.preemptions) ? c.preemptions : null,
    reduction: c.reduce,
    stateCache: c.stateCache,
    complete: r.complete,
    schedules: r.schedules,
    sleepBlocked: r.blocked,
    cachedStops: r.cached,
    states: r.states,
    stepsExecuted: r.stepsExecuted,
    seconds: r.seconds,
    stepsPerSecond: r.seconds > 0 ? r.stepsExecuted / r.seconds : 0,
    statesPerSecond: r.states !== null && r.seconds > 0 ? r.states / r.seconds : null,
    violations: r.violations.map((v) => v.property),
  };
}

/** schedules(plain) / schedules(reduced), when both searches finished on the same bound. */
export function reductionFactor(rows: readonly ExhaustiveRow[]): number | null {
  const plain = rows.find((r) => !r.reduction && !r.stateCache && r.preemptions !== null);
  const reduced = rows.find((r) => r.reduction && !r.stateCache && r.preemptions === plain?.preemptions);
  if (plain === undefined || reduced === undefined || !plain.complete || !reduced.complete || reduced.schedules === 0) return null;
  return plain.schedules / reduced.schedules;
}
