/**
 * Exhaustive search of the small configuration (properties/scenarios/small-warmstart.json) in the
 * configurations the benchmark reports: plain DFS and sleep sets within a preemption
 * bound (the reduction factor is schedules(plain) / schedules(reduced) on the same
 * bound), the whole space, unbounded, with the state cache, and optimal DPOR
 * (model/explore/dpor/search.ts) unbounded, with and without its state cache; with the
 * state cache within 2 preemptions, sleep sets (the default) beside BPOR; the
 * stateless DPOR search of a smaller configuration in this thread and on two worker
 * threads (model/explore/dpor/parallel.ts; the jobs speedup is the wall-clock ratio, with
 * the CPU seconds beside it, since a shared machine's other load takes its share); and
 * the medium configuration (properties/scenarios/medium.json) with DPOR and its state
 * cache; and the growth table beside Spin (spin_bench.ts: 2-8 experts, 1-3 loaders, ring
 * 1-4, Spin run in the same process's run when it is installed, on the anchor's model and
 * on the same model with the lifecycle gate). Steps per distinct state is the
 * re-execution cost: steps executed / states.
 *
 * Invariants: every configuration counts distinct states the same way (state_digest.ts:
 * the canonical state), so the counts of two complete searches agree when they run the
 * same schedules (plain DFS and sleep sets, both with the cache); DPOR and BPOR run one
 * schedule of each trace, whose intermediate states are fewer (unbounded DPOR fewer still:
 * a gate section's release goes alone there, dpor/gate_sections.ts), and their verdicts
 * are the same;
 * a limit that stops a search is reported as incomplete, never as a result.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dporSearch } from '../../../model/explore/dpor/search.js';
import { search, type SearchResult } from '../../../model/explore/search.js';
import { scenarioSubject } from '../../../model/explore/subject.js';
import type { Scenario } from '../../../model/scenario/scenario.js';
import { exhaustiveParts, joinSearchParts } from '../../../properties/search_parts.js';
import { describeScenario } from '../../../model/scenario/scenario.js';
import { mediumScenario, smallWarmstart } from '../../../properties/committed_scenarios.js';
import { measureSpin, type SpinSection } from './spin_bench.js';

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
  readonly stepsPerState: number | null;
  readonly violations: string[];
  /** DPOR: whether runs went on from saved states (null: not a DPOR row) */
  readonly restored?: boolean | null;
  /** seconds of each run, in order, where the search was repeated (the row is the median run) */
  readonly runs?: readonly number[];
}

/** a search that completes within this many seconds is run REPEATS times */
const REPEAT_BELOW_SECONDS = 5;
const REPEATS = 3;

/**
 * A short search run REPEATS times, the median run reported with every run's seconds: a
 * first run in a process pays for compiling the code it runs, and a neighbour's load on
 * a shared machine moves one run by a fifth; the counts of the runs are the same (the
 * search is deterministic), which is checked.
 */
export function repeatedRow(first: ExhaustiveRow, again: () => ExhaustiveRow): ExhaustiveRow {
  if (!first.complete || first.seconds >= REPEAT_BELOW_SECONDS) return first;
  const all = [first];
  for (let i = 1; i < REPEATS; i++) {
    const r = again();
    if (r.schedules !== first.schedules || r.states !== first.states || r.stepsExecuted !== first.stepsExecuted)
      throw new Error(`bench: ${first.label} counted differently when run again (the search is not deterministic)`);
    all.push(r);
  }
  const median = [...all].sort((a, b) => a.seconds - b.seconds)[Math.floor(all.length / 2)] as ExhaustiveRow;
  return { ...median, runs: all.map((r) => r.seconds) };
}

export interface ExhaustiveConfig {
  readonly label: string;
  readonly preemptions: number;
  readonly reduce: boolean;
  readonly stateCache: boolean;
  /** optimal DPOR instead of sleep sets (reduce must be on) */
  readonly dpor?: boolean;
  /** DPOR: false replays every run from the start (default: goes on from saved states) */
  readonly restore?: boolean;
}

export const SMALL_CONFIGS: readonly ExhaustiveConfig[] = [
  { label: 'plain DFS, <= 2 preemptions', preemptions: 2, reduce: false, stateCache: false },
  { label: 'sleep sets, <= 2 preemptions', preemptions: 2, reduce: true, stateCache: false },
  { label: 'plain DFS + state cache, unbounded', preemptions: Infinity, reduce: false, stateCache: true },
  { label: 'sleep sets + state cache, unbounded', preemptions: Infinity, reduce: true, stateCache: true },
  { label: 'DPOR, unbounded', preemptions: Infinity, reduce: true, stateCache: false, dpor: true },
  {
    label: 'DPOR + state cache, unbounded, replayed from the start',
    preemptions: Infinity,
    reduce: true,
    stateCache: true,
    dpor: true,
    restore: false,
  },
  { label: 'DPOR + state cache, unbounded', preemptions: Infinity, reduce: true, stateCache: true, dpor: true },
  // the bounded searches a user can ask for: sleep sets (the default) beside BPOR
  { label: 'sleep sets + state cache, <= 2 preemptions', preemptions: 2, reduce: true, stateCache: true },
  { label: 'BPOR + state cache, <= 2 preemptions', preemptions: 2, reduce: true, stateCache: true, dpor: true },
];

export function exploreRow(s: Scenario, c: ExhaustiveConfig, maxSeconds: number): ExhaustiveRow {
  const opts = {
    preemptions: c.preemptions,
    reduce: c.reduce,
    stateCache: c.stateCache,
    countStates: true,
    maxSeconds,
    stopOnViolation: false,
    ...(c.restore === false ? { restore: false } : {}),
  };
  if (c.dpor !== true) return row(c, search(scenarioSubject(s), opts));
  const r = dporSearch(scenarioSubject(s), opts);
  return { ...row(c, r), restored: r.restore !== null };
}

function row(c: ExhaustiveConfig, r: SearchResult): ExhaustiveRow {
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
    stepsPerState: r.states !== null && r.states > 0 ? r.stepsExecuted / r.states : null,
    violations: r.violations.map((v) => v.property),
  };
}

/** schedules(plain) / schedules(reduced), when both searches finished on the same bound. */
export function reductionFactor(rows: readonly ExhaustiveRow[]): number | null {
  const plain = rows.find((r) => !r.reduction && !r.stateCache && r.preemptions !== null);
  const reduced = rows.find((r) => r.reduction && !r.stateCache && r.preemptions === plain?.preemptions);
  if (plain === undefined || reduced === undefined || !plain.complete || !reduced.complete || reduced.schedules === 0)
    return null;
  return plain.schedules / reduced.schedules;
}

export interface JobsRow {
  readonly label: string;
  readonly jobs: number;
  readonly complete: boolean;
  readonly schedules: number;
  readonly states: number | null;
  readonly wallSeconds: number;
  /** CPU seconds of the whole process (every thread), worker start-up included */
  readonly cpuSeconds: number;
  readonly schedulesPerSecond: number;
  readonly violations: string[];
}

/** What jobs_child.ts measures in a process of its own. */
export interface JobsChildRequest {
  readonly mode: 'shared' | 'independent';
  /** experts of the small warmstart scenario (2: completes in seconds; 3: a steady rate) */
  readonly experts: number;
  readonly jobs: number;
  readonly seconds: number;
  readonly label: string;
}

/** DPOR of `s` (unbounded) in `jobs` parts on as many worker threads, timed on the wall clock. */
export async function jobsRow(s: Scenario, label: string, jobs: number, maxSeconds: number): Promise<JobsRow> {
  const request = {
    scenario: s,
    seed: 1,
    runs: Infinity,
    seconds: maxSeconds,
    strategy: 'exhaustive',
    preemptions: Infinity,
  } as const;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const r = joinSearchParts(request, await exhaustiveParts(request, jobs, null));
  const wallSeconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const schedules = r.guarantee?.schedules ?? 0;
  return {
    label,
    jobs,
    complete: r.guarantee?.complete === true,
    schedules,
    states: r.guarantee?.states ?? null,
    wallSeconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    schedulesPerSecond: schedules / Math.max(1e-9, wallSeconds),
    violations: Object.keys(r.violations),
  };
}

export interface ExhaustiveSection {
  readonly scenario: string;
  readonly rows: ExhaustiveRow[];
  readonly reductionFactor: number | null;
  readonly jobsScenario: string;
  readonly jobs: JobsRow[];
  readonly jobsSpeedup: number | null;
  /** the larger configuration searched for `steadySeconds` on 1 and 2 jobs */
  readonly steadyScenario: string;
  readonly steadySeconds: number;
  readonly steady: JobsRow[];
  /** schedules/s of 2 jobs over 1 */
  readonly steadySpeedup: number | null;
  /** the steady configuration's whole search once in one thread, then twice at once on two
   *  workers (nothing shared): what two threads of this work can give on this machine */
  readonly ceiling: JobsRow[];
  readonly ceilingSpeedup: number | null;
  readonly mediumScenario: string;
  readonly medium: ExhaustiveRow;
  /** the growth table beside Spin (spin_bench.ts) */
  readonly spin?: SpinSection;
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US');

/** One row measured in a fresh process (jobs_child.ts, run by apps/cli/bin/jobs_child.ts), so every row starts as cold as a user's run. */
function childRow(req: JobsChildRequest): JobsRow {
  const child = new URL('../bin/jobs_child.ts', import.meta.url);
  const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(child), JSON.stringify(req)], {
    encoding: 'utf8',
    timeout: (req.seconds + 120) * 1000,
    maxBuffer: 1 << 24,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{'))
    throw new Error(
      `bench: the jobs measurement '${req.label}' failed (${r.status ?? r.signal}): ${r.stderr.trim().slice(-400)}`,
    );
  return JSON.parse(line) as JobsRow;
}

const ratioOf = (a: JobsRow | undefined, b: JobsRow | undefined): number | null =>
  a !== undefined && b !== undefined && a.schedulesPerSecond > 0 ? b.schedulesPerSecond / a.schedulesPerSecond : null;

/** The stateless DPOR search of `s` on 1 job (one thread), then on 2 worker threads, each
 *  in a fresh process; speedup: schedules/s of 2 over 1. */
function jobsPair(
  s: Scenario,
  experts: number,
  limit: number,
  what: string,
  log: (s: string) => void,
  mode: JobsChildRequest['mode'] = 'shared',
): { rows: JobsRow[]; speedup: number | null } {
  const rows: JobsRow[] = [];
  for (const n of [1, 2]) {
    const how =
      mode === 'shared'
        ? n === 1
          ? 'one thread'
          : `${n} worker threads`
        : n === 1
          ? 'one thread, alone'
          : `${n} worker threads, each its own whole search`;
    log(`exhaustive: DPOR of ${describeScenario(s)} on ${how}, fresh process ...`);
    const label = `DPOR, unbounded, ${what}, ${mode === 'shared' ? `${n} job${n === 1 ? '' : 's'}` : `${n} independent whole search${n === 1 ? '' : 'es'} (the ceiling)`}`;
    const j = childRow({ mode, experts, jobs: n, seconds: limit, label });
    log(
      `  ${j.complete ? 'complete' : 'INCOMPLETE'}: ${int(j.schedules)} schedules, ${j.states ?? '?'} states, ${j.wallSeconds.toFixed(1)} s wall, ${j.cpuSeconds.toFixed(1)} s CPU, ${int(j.schedulesPerSecond)} schedules/s`,
    );
    rows.push(j);
  }
  const speedup = ratioOf(rows[0], rows[1]);
  if (speedup !== null)
    log(
      mode === 'shared'
        ? `  2 jobs: ${speedup.toFixed(2)}x the schedules/s of 1 job`
        : `  the machine's ceiling: two independent searches at once make ${speedup.toFixed(2)}x the schedules/s of one`,
    );
  return { rows, speedup };
}

/** The whole section, each configuration stopped after `limit` seconds; `unexpected`: a violation. */
export async function measureExhaustive(
  limit: number,
  log: (s: string) => void,
): Promise<{ section: ExhaustiveSection; unexpected: boolean }> {
  let unexpected = false;
  const explore = (s: Scenario, c: ExhaustiveConfig): ExhaustiveRow => {
    log(`exhaustive: ${c.label} ...`);
    const row = repeatedRow(exploreRow(s, c, limit), () => exploreRow(s, c, limit));
    const runs = row.runs === undefined ? '' : ` (median of ${row.runs.map((x) => x.toFixed(2)).join(', ')} s)`;
    const perState = row.stepsPerState !== null ? `, ${row.stepsPerState.toFixed(1)} steps per state` : '';
    const rate = row.statesPerSecond !== null ? `, ${int(row.statesPerSecond)} states/s` : '';
    log(
      `  ${row.complete ? 'complete' : 'INCOMPLETE'}: ${int(row.schedules)} schedules, ${int(row.cachedStops)} stopped at a known state, ${row.states === null ? '?' : int(row.states)} states, ${row.seconds.toFixed(1)} s${runs}${rate}${perState}`,
    );
    if (row.violations.length > 0) unexpected = true;
    return row;
  };
  const small = smallWarmstart();
  const rows = SMALL_CONFIGS.map((c) => explore(small, c));
  // the jobs speedup on a configuration whose stateless DPOR search completes in seconds
  // (same verdicts), then on a larger one for half the time limit (the steady rate, with
  // the workers' start-up a smaller share)
  const two = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2] });
  const jobs = jobsPair(two, 2, limit, '2 experts', log);
  const three = smallWarmstart({ experts: 3, ramCapacity: 3, budgetExperts: [3] });
  const steady = jobsPair(three, 3, limit / 2, `3 experts, ${limit / 2} s`, log);
  // the limit beside it: the same work with nothing shared between the two threads
  const ceiling = jobsPair(three, 3, limit / 2, `3 experts, ${limit / 2} s`, log, 'independent');
  for (const j of [...jobs.rows, ...steady.rows, ...ceiling.rows]) if (j.violations.length > 0) unexpected = true;
  const medium = mediumScenario();
  log(`exhaustive: medium configuration, ${describeScenario(medium)}`);
  const mediumRow = explore(medium, {
    label: 'DPOR + state cache, unbounded',
    preemptions: Infinity,
    reduce: true,
    stateCache: true,
    dpor: true,
  });
  const spin = measureSpin(limit, log);
  if (spin.unexpected) unexpected = true;
  const section: ExhaustiveSection = {
    scenario: describeScenario(small),
    rows,
    reductionFactor: reductionFactor(rows),
    jobsScenario: describeScenario(two),
    jobs: jobs.rows,
    jobsSpeedup: jobs.speedup,
    steadyScenario: describeScenario(three),
    steadySeconds: limit / 2,
    steady: steady.rows,
    steadySpeedup: steady.speedup,
    ceiling: ceiling.rows,
    ceilingSpeedup: ceiling.speedup,
    mediumScenario: describeScenario(medium),
    medium: mediumRow,
    spin: spin.section,
  };
  return { section, unexpected };
}
