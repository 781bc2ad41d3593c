/**
 * The property runner's vocabulary: what a check is asked (a suite or one scenario, a
 * strategy and its budget), what a counterexample holds, and what a suite reports. Shared
 * by the runners (runner.ts, runner_explore.ts), the tally and the reports.
 */
import type { PropertyId } from '../src/check/catalogue.js';
import type { CoverageMark } from '../src/check/checkers/coverage.js';
import type { Guarantee } from '../model/explore/guarantee.js';
import type { Scenario } from '../model/scenario/scenario.js';
import type { Suite } from './arbitraries.js';

/** Runs per property id that violated it (an id no run violated is absent). */
export type ViolationCounts = Partial<Record<PropertyId, number>>;
/** Runs per coverage mark that reached it (a mark no run reached is absent). */
export type CoverageCounts = Partial<Record<CoverageMark, number>>;

/** Adds `from`'s counts into `into`, key by key, in `from`'s order. */
export function addCounts<K extends string>(into: Partial<Record<K, number>>, from: Partial<Record<K, number>>): void {
  // the keys of a counts record are its vocabulary's words (Object.keys types them as strings)
  for (const k of Object.keys(from) as K[]) into[k] = (into[k] ?? 0) + (from[k] ?? 0);
}

export const STRATEGIES = ['choices', 'random', 'pct', 'exhaustive'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export interface CheckRequest {
  readonly suite: Suite;
  readonly seed: number;
  readonly runs: number;
  /** wall-clock budget for this suite; stops early (not a failure) */
  readonly seconds?: number;
  readonly property?: PropertyId;
  readonly strategy?: StrategyName;
  /** called every few hundred runs with the runs so far */
  readonly onProgress?: (runs: number) => void;
  /** PCT: bug depth d (default 2) */
  readonly depth?: number;
  /** PCT on a given scenario: runs from the bound for this confidence */
  readonly confidence?: number;
  /** exhaustive: preemption bound (default 2 on a given scenario, 1 on generated ones) */
  readonly preemptions?: number;
  /** exhaustive: sleep-set reduction (default on) */
  readonly reduction?: boolean;
  /** exhaustive: prune states explored before (default off) */
  readonly stateCache?: boolean;
  /** exhaustive, unbounded, with the state cache (DPOR): replay each run from the start
   *  instead of going on from the state saved where it branches (model/explore/state/restore/) */
  readonly replay?: boolean;
}

/** Explore one given scenario instead of a suite's generated ones. */
export interface ScenarioRequest extends Omit<CheckRequest, 'suite'> {
  readonly scenario: Scenario;
  /** exhaustive: report the counterexample of the fewest steps (not the minimizer's) */
  readonly shortest?: boolean;
}

export interface Counterexample {
  readonly property: PropertyId;
  readonly detail: string;
  readonly suite: Suite | 'scenario';
  readonly scenario: Scenario;
  /** the schedule that replays it (trailing quiet choices trimmed) */
  readonly choices: number[];
  readonly steps: number;
  /** fast-check's seed and path to the shrunk case */
  readonly seed: number;
  readonly path: string;
  readonly runsToFind: number;
  readonly shrinks: number;
  readonly secondsToFind: number;
}

export interface SuiteResult {
  /** the suite, or 'scenario' for one given scenario */
  readonly suite: Suite | 'scenario';
  readonly strategy: StrategyName;
  readonly runs: number;
  readonly steps: number;
  readonly seconds: number;
  readonly failure: Counterexample | null;
  /** violations seen per property id (before shrinking) */
  readonly violations: ViolationCounts;
  /** coverage mark -> runs that reached it */
  readonly coverage: CoverageCounts;
  /** PCT and exhaustive search on one given scenario: what was covered, in numbers */
  readonly guarantee?: Guarantee;
}
