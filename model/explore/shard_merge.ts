/**
 * Joins the results of the parts of one split search (dpor_shard.ts), run in worker
 * threads or on other machines, into the result of the whole: counts add up, distinct
 * states are the union of the parts' digests (when kept), a property is violated when
 * any part found it (the counterexample from the lowest part that did, then the fewest
 * steps), and the whole is complete only when every part is.
 *
 * Invariant: joining is order-free in its input (parts are sorted by their index first).
 */
import type { DporSearchResult, DporStats } from './dpor_search.js';
import type { FoundViolation } from './search_types.js';

export interface ShardResult {
  readonly index: number;
  readonly count: number;
  readonly result: DporSearchResult;
}

export function mergeShards(parts: readonly ShardResult[]): DporSearchResult {
  const sorted = [...parts].sort((a, b) => a.index - b.index);
  const first = sorted[0]?.result;
  if (first === undefined) throw new Error('no search parts to join');
  const count = first === undefined ? 0 : (sorted[0]?.count ?? 1);
  const seen = new Set(sorted.map((p) => p.index));
  if (sorted.some((p) => p.count !== count) || seen.size !== sorted.length) throw new Error('search parts of different splits, or one part twice');
  const sum = (f: (r: DporSearchResult) => number): number => sorted.reduce((a, p) => a + f(p.result), 0);
  const digests = sorted.every((p) => p.result.stateDigests !== undefined) ? new Set(sorted.flatMap((p) => p.result.stateDigests ?? [])) : null;
  const violations: FoundViolation[] = [];
  for (const p of sorted) {
    for (const v of p.result.violations) {
      const known = violations.findIndex((w) => w.property === v.property);
      if (known < 0) violations.push(v);
    }
  }
  const dpor: DporStats = {
    expansions: sum((r) => r.dpor.expansions),
    races: sum((r) => r.dpor.races),
    insertions: sum((r) => r.dpor.insertions),
    infeasible: sum((r) => r.dpor.infeasible),
    sleepBlocked: sum((r) => r.dpor.sleepBlocked),
    boundStopped: sum((r) => r.dpor.boundStopped),
  };
  return {
    schedules: sum((r) => r.schedules),
    blocked: sum((r) => r.blocked),
    cached: sum((r) => r.cached),
    steps: sum((r) => r.steps),
    stepsExecuted: sum((r) => r.stepsExecuted),
    nodes: sum((r) => r.nodes),
    states: digests !== null ? digests.size : first.states === null ? null : Math.max(...sorted.map((p) => p.result.states ?? 0)),
    seconds: Math.max(...sorted.map((p) => p.result.seconds)),
    maxChoices: Math.max(...sorted.map((p) => p.result.maxChoices)),
    preemptions: first.preemptions,
    reduce: first.reduce,
    stateCache: first.stateCache,
    complete: count === sorted.length && sorted.every((p) => p.result.complete),
    stoppedBy: sorted.find((p) => p.result.stoppedBy !== null)?.result.stoppedBy ?? null,
    violations,
    violatingSchedules: sum((r) => r.violatingSchedules),
    ...(digests !== null ? { stateDigests: [...digests] } : {}),
    dpor,
  };
}
