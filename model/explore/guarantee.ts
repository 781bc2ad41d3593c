/**
 * What an exploration of one scenario guarantees, in numbers and in one sentence, for the
 * property report and the terminal. Exhaustive search: every schedule within the
 * preemption bound (orders of independent steps counted once). PCT: the probability of
 * finding any bug of the given depth.
 *
 * Invariant: `statement` claims a guarantee only when `complete` is true; a search or
 * campaign cut short by a limit says so and how far it got.
 */
import type { PctCampaignResult } from './pct_campaign.js';
import type { SearchResult } from './search.js';

export interface Guarantee {
  readonly strategy: 'exhaustive' | 'pct';
  readonly complete: boolean;
  readonly statement: string;
  readonly schedules: number;
  readonly steps: number;
  readonly seconds: number;
  /** exhaustive: the bound (null: unbounded), reduction, states, sleep-blocked runs */
  readonly preemptions?: number | null;
  readonly reduction?: boolean;
  readonly stateCache?: boolean;
  readonly states?: number | null;
  readonly sleepBlocked?: number;
  readonly choicePoints?: number;
  /** pct */
  readonly depth?: number;
  readonly threads?: number;
  readonly k?: number;
  readonly perRunProbability?: number;
  readonly confidence?: number;
  readonly runsPlanned?: number;
}

export function searchGuarantee(r: SearchResult): Guarantee {
  const bound = Number.isFinite(r.preemptions)
    ? `at most ${r.preemptions} preemption${r.preemptions === 1 ? '' : 's'}`
    : 'any number of preemptions';
  const how =
    (r.reduce
      ? 'dpor' in r
        ? 'optimal DPOR: one schedule per Mazurkiewicz trace'
        : 'sleep-set reduction: orders of independent steps explored once'
      : 'no reduction') +
    (r.stateCache
      ? '; state cache: a state explored before is not explored again, sound as far as its digest is the state'
      : '');
  const numbers =
    `${r.schedules} schedules, ${r.states ?? '?'} distinct states, ${r.blocked} sleep-blocked runs` +
    (r.stateCache ? `, ${r.cached} runs stopped at a known state` : '') +
    `, ${r.seconds.toFixed(1)} s`;
  const statement = r.complete
    ? `exhaustive: every interleaving with ${bound} covered (${how}; ${numbers})`
    : `exhaustive, INCOMPLETE (stopped by ${r.stoppedBy ?? '?'}): interleavings with ${bound} partly covered (${numbers})`;
  return {
    strategy: 'exhaustive',
    complete: r.complete,
    statement,
    schedules: r.schedules,
    steps: r.steps,
    seconds: r.seconds,
    preemptions: Number.isFinite(r.preemptions) ? r.preemptions : null,
    reduction: r.reduce,
    stateCache: r.stateCache,
    states: r.states,
    sleepBlocked: r.blocked,
    choicePoints: r.nodes,
  };
}

export function pctGuarantee(r: PctCampaignResult): Guarantee {
  return {
    strategy: 'pct',
    complete: r.complete,
    statement: r.statement,
    schedules: r.runs,
    steps: r.steps,
    seconds: r.seconds,
    depth: r.bound.depth,
    threads: r.bound.threads,
    k: r.bound.steps,
    perRunProbability: r.bound.perRun,
    confidence: r.confidence,
    runsPlanned: r.runsPlanned,
  };
}
