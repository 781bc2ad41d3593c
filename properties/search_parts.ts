/**
 * Exhaustive search of one given scenario, as parts that run apart: in this thread
 * (`--jobs 1`), on worker threads (`--jobs N`), or in CI jobs (`--shard i/n`, joined by
 * `npm run report -- merge`). Unbounded with reduction on, the search is optimal DPOR
 * (model/explore/dpor/search.ts): on worker threads it hands out its work as it appears
 * (model/explore/dpor/parallel.ts), in CI jobs or with the state cache it splits into
 * parts (model/explore/dpor/shard.ts). Under a
 * preemption bound it is the sleep-set search (model/explore/search.ts): the DPOR
 * search's bounded mode (BPOR) does not yet finish where sleep sets do. With
 * --no-reduction it is plain DFS. Those two do not split.
 *
 * A part records every schedule it completes into its own tally (runs, steps, coverage
 * marks, violations) and keeps its distinct state digests, so that the join counts the
 * states of the whole search once, whichever part reached them.
 *
 * Invariant: the verdicts (properties violated, completeness, distinct states) of the
 * joined parts are those of the search in one part; split into parts, schedules and steps
 * are larger, as every part replays the shared start of the tree.
 */
import { searchGuarantee } from '../model/explore/guarantee.js';
import { mergeShards, type ShardResult } from '../model/explore/dpor/shard_merge.js';
import { dporSearch } from '../model/explore/dpor/search.js';
import { dporParallel } from '../model/explore/dpor/parallel.js';
import { search } from '../model/explore/search.js';
import type { SearchOptions, SearchStats } from '../model/explore/search_types.js';
import { scenarioSubject } from '../model/explore/subject.js';
import { runTasks } from '../model/explore/workers/pool.js';
import { DEFAULT_PREEMPTIONS_SCENARIO, shrunkCounterexample, shortestFailure } from './runner_explore.js';
import { newTally, record, summarize, type Tally } from './tally.js';
import { addCounts, type ScenarioRequest, type SuiteResult } from './types.js';

/** A scenario request without callbacks (it crosses thread and process boundaries). */
export type PlainScenarioRequest = Omit<ScenarioRequest, 'onProgress'>;

export interface SearchPartSpec {
  readonly request: PlainScenarioRequest;
  readonly index: number;
  readonly count: number;
}

export interface SearchPart extends ShardResult {
  readonly tally: Tally;
}

/**
 * Part `index` of `count` of the search (in a worker, in this thread, or in one CI job);
 * `onProgress` (in this thread only) hears how far it got now and then.
 */
export function searchPart(spec: SearchPartSpec, onProgress?: (line: string) => void): SearchPart {
  const req = spec.request;
  const tally = newTally();
  const opts = searchOptions(req, tally, spec.count > 1, onProgress);
  const subject = scenarioSubject(req.scenario);
  if (splits(req))
    return { index: spec.index, count: spec.count, result: dporSearch(subject, { ...opts, shard: spec }), tally };
  if (spec.count > 1)
    throw new Error('only an unbounded search with reduction splits into parts (--preemptions inf, no --no-reduction)');
  return { index: 0, count: 1, result: search(subject, opts), tally };
}

/** How far a search got, in one line. */
export function progressLine(s: SearchStats): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const states = s.states !== null ? `, ${n(s.states)} distinct states` : '';
  const cached = s.cached > 0 ? `, ${n(s.cached)} runs stopped at a known state` : '';
  return `${n(s.schedules)} schedules${cached}${states}, ${s.seconds.toFixed(0)} s`;
}

/** The search's options; each schedule it completes goes into `tally`. */
function searchOptions(
  req: PlainScenarioRequest,
  tally: Tally,
  keepStates: boolean,
  onProgress?: (line: string) => void,
): SearchOptions {
  const started = performance.now();
  return {
    ...(onProgress !== undefined ? { onProgress: (s: SearchStats) => onProgress(progressLine(s)) } : {}),
    preemptions: req.preemptions ?? DEFAULT_PREEMPTIONS_SCENARIO,
    reduce: req.reduction !== false,
    stateCache: req.stateCache === true,
    ...(req.replay === true ? { restore: false } : {}),
    countStates: true,
    keepStates,
    maxSchedules: req.runs,
    maxSeconds: req.seconds,
    onSchedule: (r) => record(tally, r, started, req.property),
  };
}

/** Whether the search is DPOR, which splits into parts: unbounded, with reduction. */
export function splits(req: PlainScenarioRequest): boolean {
  return req.reduction !== false && req.preemptions !== undefined && !Number.isFinite(req.preemptions);
}

/**
 * Joins the parts (all `count` of them, or the ones at hand) into the suite result; with
 * --shortest, then searches for the shortest counterexample (`onProgress` hears of it).
 */
export function joinSearchParts(
  req: PlainScenarioRequest,
  parts: readonly SearchPart[],
  onProgress?: (line: string) => void,
): SuiteResult {
  const whole = mergeShards(parts);
  const tally = newTally();
  for (const p of [...parts].sort((a, b) => a.index - b.index)) {
    tally.runs += p.tally.runs;
    tally.steps += p.tally.steps;
    addCounts(tally.violations, p.tally.violations);
    addCounts(tally.coverage, p.tally.coverage);
    if (tally.firstFailAtRun < 0 && p.tally.firstFailAtRun >= 0) {
      tally.firstFailAtRun = tally.runs - p.tally.runs + p.tally.firstFailAtRun;
      tally.firstFailSeconds = p.tally.firstFailSeconds;
    }
  }
  const v = whole.violations.find((f) => req.property === undefined || f.property === req.property) ?? null;
  let failure = null;
  let shortestNote = '';
  if (v !== null && req.shortest === true) {
    const s = shortestFailure(req, v.property, tally, onProgress);
    failure = s.failure;
    shortestNote = s.note;
  } else if (v !== null) {
    failure = shrunkCounterexample('scenario', req.scenario, v, tally, req.seed);
  }
  const g = searchGuarantee(whole);
  const count = parts[0]?.count ?? 1;
  const guarantee =
    parts.length < count
      ? {
          ...g,
          statement: `exhaustive, part ${parts.map((p) => p.index).join(', ')} of ${count} only: no guarantee until \`npm run report -- merge\` joins every part (${g.statement})`,
        }
      : count > 1
        ? { ...g, statement: `${g.statement}; in ${count} parts` }
        : g;
  return summarize(
    'scenario',
    'exhaustive',
    tally,
    whole.seconds,
    failure,
    shortestNote === '' ? guarantee : { ...guarantee, statement: `${guarantee.statement}; ${shortestNote}` },
  );
}

/**
 * The whole search on `jobs` worker threads (1: in this thread), or one shard's parts.
 * An unbounded stateless DPOR search on several threads hands its work out as it
 * appears (dpor/parallel.ts: one tree, no overlap); with the state cache it is split
 * into one part per thread (dpor/shard.ts: each thread keeps its own cache).
 */
export async function exhaustiveParts(
  req: PlainScenarioRequest,
  jobs: number,
  shard: { index: number; count: number } | null,
  onProgress?: (line: string) => void,
): Promise<SearchPart[]> {
  // one part in this thread: it can say how far it got as it goes
  if (shard === null && (jobs <= 1 || !splits(req)))
    return [searchPart({ request: req, index: 0, count: 1 }, onProgress)];
  if (shard === null && jobs > 1 && splits(req) && req.stateCache !== true) {
    const tally = newTally();
    const subject = {
      module: new URL('../model/explore/subject.ts', import.meta.url).href,
      fn: 'scenarioSubject',
      arg: req.scenario,
    };
    const result = await dporParallel(subject, searchOptions(req, tally, false, onProgress), jobs);
    return [{ index: 0, count: 1, result, tally }];
  }
  const module = new URL('./search_parts.ts', import.meta.url).href;
  // one part per job; a shard of a CI matrix is one part of the whole, run in this process
  const specs: SearchPartSpec[] =
    shard !== null
      ? [{ request: req, index: shard.index, count: shard.count }]
      : Array.from({ length: splits(req) ? jobs : 1 }, (_, index) => ({
          request: req,
          index,
          count: splits(req) ? jobs : 1,
        }));
  return runTasks<SearchPart>(
    specs.map((arg) => ({ module, fn: 'searchPart', arg })),
    jobs,
    onProgress === undefined ? undefined : (done, total) => onProgress(`${done} of ${total} parts of the search done`),
  );
}
