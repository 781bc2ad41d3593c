/**
 * Joins the results of the parts of one split search (dpor/shard.ts), run in worker
 * threads or on other machines, into the result of the whole: counts add up, distinct
 * states are the union of the parts' digests (when kept), a property is violated when
 * any part found it (the counterexample from the lowest part that did, then the fewest
 * steps), and the whole is complete only when every part is.
 *
 * Invariant: joining is order-free in its input (parts are sorted by their index first).
 */
import type { DporStats } from './search.js';
import type { FoundViolation, SearchResult } from '../search_types.js';

/** A part's result: a DPOR search's (with its counters), or a whole unsplit search's. */
export type PartResult = SearchResult & { readonly dpor?: DporStats };

export interface ShardResult {
  readonly index: number;
  readonly count: number;
  readonly result: PartResult;
}

export function mergeShards(parts: readonly ShardResult[]): PartResult {
  const sorted = [...parts].sort((a, b) => a.index - b.index);
  const first = sorted[0]?.result;
  if (first === undefined) throw new Error('no search parts to join');
  const count = sorted[0]?.count ?? 1;
  const seen = new Set(sorted.map((p) => p.index));
  if (sorted.some((p) => p.count !== count) || seen.size !== sorted.length)
    throw new Error('search parts of different splits, or one part twice');
  const sum = (f: (r: PartResult) => number): number => sorted.reduce((a, p) => a + f(p.result), 0);
  const digests = sorted.every((p) => p.result.stateDigests !== undefined)
    ? new Set(sorted.flatMap((p) => p.result.stateDigests ?? []))
    : null;
  const violations: FoundViolation[] = [];
  for (const p of sorted) {
    for (const v of p.result.violations) {
      const known = violations.findIndex((w) => w.property === v.property);
      if (known < 0) violations.push(v);
    }
  }
  const stat = (k: keyof DporStats): number => sum((r) => r.dpor?.[k] ?? 0);
  const dpor: DporStats | null = sorted.every((p) => p.result.dpor !== undefined)
    ? {
        expansions: stat('expansions'),
        races: stat('races'),
        insertions: stat('insertions'),
        infeasible: stat('infeasible'),
        sleepBlocked: stat('sleepBlocked'),
        boundStopped: stat('boundStopped'),
      }
    : null;
  return {
    schedules: sum((r) => r.schedules),
    blocked: sum((r) => r.blocked),
    cached: sum((r) => r.cached),
    steps: sum((r) => r.steps),
    stepsExecuted: sum((r) => r.stepsExecuted),
    nodes: sum((r) => r.nodes),
    states:
      digests !== null
        ? digests.size
        : first.states === null
          ? null
          : Math.max(...sorted.map((p) => p.result.states ?? 0)),
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
    ...(dpor !== null ? { dpor } : {}),
  };
}
