/**
 * The property runs of a suite (or of one scenario) as a fixed list of units, so that
 * they can run on every core (`--jobs N`, worker threads) or on many machines (`--shard
 * i/n`, joined by `npm run report -- merge`) with the results of one job.
 *
 * A unit is a block of UNIT_RUNS runs with its own seed (derived from the request's seed
 * and the unit's number, never from how many jobs there are). A time-budgeted run
 * (mutation runs: --seconds with a huge --runs) is cut into one unit per job or shard
 * instead, all running at once, each for the whole budget from its own start (a worker
 * thread takes a while to start on a loaded machine, and that is not the run's time): its
 * result depends on the machine anyway. Units
 * are run in any order and joined in unit order: runs, steps, violations and coverage add up to the first unit
 * that found a counterexample, and that unit's counterexample is the result's. A later
 * unit's find is discarded, as one job would never have run it.
 *
 * On one scenario, exhaustive search is not cut into runs: its parts are parts of the
 * search tree (search_parts.ts).
 *
 * Invariant: `joinUnits(request, units)` depends only on the units' results and numbers, so any
 * job count and any split into shards give the same suite result (runs-bounded runs; a
 * time budget makes every run depend on the machine anyway).
 */
import { checkScenario, checkSuite } from './runner.js';
import {
  addCounts,
  type CheckRequest,
  type CoverageCounts,
  type ScenarioRequest,
  type SuiteResult,
  type ViolationCounts,
} from './types.js';
import { runTasks } from '../model/explore/workers/pool.js';
import { newTally, summarize } from './tally.js';

export const UNIT_RUNS = 250;

/** A suite or one scenario, without callbacks (it crosses thread and process boundaries). */
export type PlainRequest = Omit<CheckRequest, 'onProgress'> | Omit<ScenarioRequest, 'onProgress'>;

export interface UnitSpec {
  readonly request: PlainRequest;
  readonly unit: number;
  /** runs per unit (unitSize) */
  readonly size: number;
}

export interface UnitResult {
  readonly unit: number;
  readonly result: SuiteResult;
}

/** Runs per unit: UNIT_RUNS, or with a time budget the runs shared by `pieces` (jobs or shards). */
export function unitSize(req: PlainRequest, pieces: number): number {
  if (req.seconds === undefined || !Number.isFinite(req.runs)) return UNIT_RUNS;
  return Math.max(1, Math.ceil(req.runs / Math.max(1, pieces)));
}

/** How many units a request is cut into (PCT to a confidence plans its runs as one whole). */
export function unitCount(req: PlainRequest, size: number): number {
  if (!Number.isFinite(req.runs) || req.confidence !== undefined) return 1;
  return Math.max(1, Math.ceil(req.runs / size));
}

/** The unit's seed: a function of the request's seed and the unit's number only. */
export function unitSeed(seed: number, unit: number): number {
  return unit === 0 ? seed : (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(unit, 0xc2b2ae35)) >>> 0;
}

/** Runs one unit (in a worker, in this thread, or in one shard of a CI matrix). */
export function runUnit(spec: UnitSpec): UnitResult {
  const req = spec.request;
  const runs =
    Number.isFinite(req.runs) && req.confidence === undefined
      ? Math.min(spec.size, req.runs - spec.unit * spec.size)
      : req.runs;
  const one = { ...req, runs, seed: unitSeed(req.seed, spec.unit) };
  const result = 'scenario' in one ? checkScenario(one) : checkSuite(one);
  return { unit: spec.unit, result };
}

/**
 * Joins units in unit order, up to and including the first one with a counterexample.
 * No units (a shard with nothing left to run): an empty result of the request's kind.
 */
export function joinUnits(request: PlainRequest, units: readonly UnitResult[]): SuiteResult {
  const sorted = [...units].sort((a, b) => a.unit - b.unit);
  const first = sorted[0];
  if (first === undefined)
    return summarize(
      'scenario' in request ? 'scenario' : request.suite,
      request.strategy ?? 'choices',
      newTally(),
      0,
      null,
    );
  let runs = 0;
  let steps = 0;
  let seconds = 0;
  const violations: ViolationCounts = {};
  const coverage: CoverageCounts = {};
  let failure: SuiteResult['failure'] = null;
  for (const { result: r } of sorted) {
    if (failure !== null) break;
    runs += r.runs;
    steps += r.steps;
    seconds += r.seconds;
    addCounts(violations, r.violations);
    addCounts(coverage, r.coverage);
    if (r.failure !== null) failure = { ...r.failure, runsToFind: runs - r.runs + r.failure.runsToFind };
  }
  return { ...first.result, runs, steps, seconds, violations, coverage, failure };
}

/** Which units a shard runs: every `count`-th, starting at `index`. */
export function unitsOfShard(total: number, shard: { index: number; count: number } | null): number[] {
  const all = Array.from({ length: total }, (_, u) => u);
  return shard === null ? all : all.filter((u) => u % shard.count === shard.index);
}

/** A suite's units (all, or a shard's) of `size` runs on `jobs` worker threads (1: in this thread). */
export async function runUnits(
  request: PlainRequest,
  size: number,
  jobs: number,
  units?: readonly number[],
  onDone?: (done: number, total: number) => void,
): Promise<UnitResult[]> {
  const module = new URL('./parallel_runs.ts', import.meta.url).href;
  const which = units ?? unitsOfShard(unitCount(request, size), null);
  const tasks = which.map((unit) => ({ module, fn: 'runUnit', arg: { request, unit, size } satisfies UnitSpec }));
  return runTasks<UnitResult>(tasks, jobs, onDone);
}
