/**
 * The options of `npm run properties` (apps/cli/properties.ts), read and checked before
 * anything runs: every bad value is one UsageError naming the option, in the order the
 * options are read, and the report directory is made ready.
 *
 * Invariants: a search flag needs its strategy (--depth and --confidence: pct;
 * --preemptions, --no-reduction, --state-cache, --no-state-cache, --replay: exhaustive), --confidence and
 * --shortest need one scenario, --shard of one scenario's search needs the unbounded DPOR
 * search, and --scenario excludes --suite. The state cache is on by default where it is sound
 * (the unbounded DPOR search of one scenario); a search of one scenario names its own report.
 * --tier c (the C tier under the scheduler) takes
 * --level and --fresh, runs on one job, unsharded, and searches one scenario exhaustively
 * without a bound or a cache.
 */
import { basename } from 'node:path';
import type { Scenario } from '../../model/scenario/scenario.js';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { SUITES, type Suite } from '../../properties/arbitraries.js';
import { claimsCounterexample, counterexampleOf, mutantOfEnvironment } from '../../properties/counterexample_file.js';
import { STRATEGIES, type StrategyName } from '../../properties/types.js';
import { isPropertyId, PROPERTIES, type PropertyId } from '../../src/check/catalogue.js';
import { InputError } from '../../src/input/input_error.js';
import { fileNamePart } from '../../src/input/paths.js';
import { MAX_SCENARIO_BYTES, readInputJson } from '../../src/input/read_file.js';
import {
  countOption,
  intOption,
  isOneOf,
  jobsOption,
  parseOrFail,
  secondsOption,
  seedOption,
  sharedOptions,
  shardOption,
  type ShardOption,
  usageError,
} from './cli_args.js';
import { prepareOutputDir } from './output_dir.js';

/** PCT depths beyond this make the bound 1/(n k^(d-1)) too small to plan runs with */
const MAX_PCT_DEPTH = 16;

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('properties', message);
}

export interface PropertiesOptions {
  readonly argv: readonly string[];
  readonly shard: ShardOption | null;
  readonly strategy: StrategyName;
  readonly seed: number;
  /** one scenario to explore (--scenario), or null for the suites */
  readonly given: Scenario | null;
  readonly runs: number;
  readonly seconds: number | undefined;
  readonly depth: number | undefined;
  readonly confidence: number | undefined;
  readonly preemptions: number | undefined;
  readonly reduction: boolean;
  readonly stateCache: boolean;
  readonly replay: boolean;
  readonly shortest: boolean;
  readonly property: PropertyId | undefined;
  /** --suite, as given */
  readonly suite: string | undefined;
  /** whether --strategy was given (a default run also searches the committed scenarios) */
  readonly strategyGiven: boolean;
  readonly suites: readonly Suite[];
  readonly reportDir: string;
  /** the report's file name without extension: `properties`, or `properties-<file>` for --scenario FILE */
  readonly reportName: string;
  readonly jobs: number;
  readonly bail: boolean;
  readonly quiet: boolean;
  readonly full: boolean;
  /** the mutant a mutation run names in the environment (its counterexamples record it) */
  readonly mutant: string | null;
  /** which tier: tierlab's own (ts), or the C tier under the scheduler (c) */
  readonly tier: 'ts' | 'c';
  /** the C tier's: 2 judged by its event log too, 1 by its boundary only */
  readonly level: 1 | 2;
  /** the C tier's: each schedule in a forked child */
  readonly fresh: boolean;
}

function parse(argv: readonly string[]) {
  return parseOrFail('properties', argv, {
    options: {
      ...sharedOptions('runs', 'seconds', 'seed', 'suite', 'strategy', 'report', 'full', 'quiet', 'jobs', 'shard'),
      property: { type: 'string' },
      bail: { type: 'boolean' },
      depth: { type: 'string' },
      confidence: { type: 'string' },
      preemptions: { type: 'string' },
      'no-reduction': { type: 'boolean' },
      'state-cache': { type: 'boolean' },
      'no-state-cache': { type: 'boolean' },
      replay: { type: 'boolean' },
      scenario: { type: 'string' },
      shortest: { type: 'boolean' },
      tier: { type: 'string' },
      level: { type: 'string' },
      fresh: { type: 'boolean' },
    },
    strict: true,
  }).values;
}

type Values = ReturnType<typeof parse>;

/** What the search flags ask, checked against the strategy and the scenario. */
function searchFlags(values: Values, strategy: StrategyName, given: Scenario | null, shard: ShardOption | null) {
  const depth =
    values.depth !== undefined ? intOption('properties', values.depth, 'depth', 1, MAX_PCT_DEPTH, 2) : undefined;
  const confidence = values.confidence !== undefined ? Number(values.confidence) : undefined;
  if (confidence !== undefined && !(confidence > 0 && confidence < 1))
    fail(`--confidence wants a number in (0, 1), e.g. 0.99; got '${values.confidence ?? ''}'`);
  if (confidence !== undefined && (strategy !== 'pct' || given === null)) {
    fail(
      '--confidence needs --strategy pct and --scenario FILE: the bound holds for one scenario, whose threads and steps it measures',
    );
  }
  const preemptions = parsePreemptions(values.preemptions);
  if ((depth !== undefined || confidence !== undefined) && strategy !== 'pct')
    fail('--depth and --confidence are for --strategy pct');
  const reduction = values['no-reduction'] !== true;
  const cacheAsked = values['state-cache'] === true;
  const cacheRefused = values['no-state-cache'] === true;
  const replay = values.replay === true;
  if ((preemptions !== undefined || !reduction || cacheAsked || cacheRefused || replay) && strategy !== 'exhaustive')
    fail('--preemptions, --no-reduction, --state-cache, --no-state-cache and --replay are for --strategy exhaustive');
  if (cacheAsked && cacheRefused) fail('--state-cache and --no-state-cache exclude each other');
  // the state cache is on by default where it is sound: the unbounded DPOR search of one
  // scenario, whose state digest is the whole state (model/explore/state/state_digest.ts);
  // --no-state-cache turns it off (a bounded search's cache stays opt-in)
  const stateCache =
    cacheAsked ||
    (!cacheRefused && strategy === 'exhaustive' && given !== null && preemptions === Infinity && reduction);
  const shortest = values.shortest === true;
  if (shortest && (strategy !== 'exhaustive' || given === null))
    fail('--shortest needs --strategy exhaustive and --scenario FILE');
  if (
    shard !== null &&
    given !== null &&
    strategy === 'exhaustive' &&
    (!reduction || preemptions === undefined || Number.isFinite(preemptions))
  ) {
    fail('--shard splits an unbounded DPOR search of one scenario: give --preemptions inf, without --no-reduction');
  }
  return { depth, confidence, preemptions, reduction, stateCache, replay, shortest };
}

/** --tier, and the C tier's own options, checked against the rest. */
function tierOptions(values: Values, strategy: StrategyName, given: Scenario | null) {
  const tier = values.tier ?? 'ts';
  if (tier !== 'ts' && tier !== 'c') fail(`--tier must be ts or c, got '${tier}'`);
  if (tier !== 'c' && (values.level !== undefined || values.fresh === true))
    fail('--level and --fresh are for --tier c');
  const level = values.level === undefined || values.level === '2' ? 2 : values.level === '1' ? 1 : 0;
  if (level === 0) fail(`--level must be 1 or 2, got '${values.level ?? ''}'`);
  if (tier === 'c') {
    const search = values.preemptions !== undefined || values['state-cache'] === true || values.replay === true;
    if (values.jobs !== undefined || values.shard !== undefined || search || values.shortest === true)
      fail(
        '--tier c runs on one job, unsharded, with the plain exhaustive search: drop --jobs, --shard, --preemptions, --state-cache, --replay, --shortest',
      );
    if (strategy === 'exhaustive' && given === null) fail('--tier c --strategy exhaustive wants --scenario FILE');
  }
  return {
    tier: tier === 'c' ? ('c' as const) : ('ts' as const),
    level: level === 1 ? (1 as const) : (2 as const),
    fresh: values.fresh === true,
  };
}

/** Which suites run: --suite's one, or all; --scenario explores one scenario instead. */
function suitesOf(values: Values, given: Scenario | null): Suite[] {
  if (values.property !== undefined && !isPropertyId(values.property)) {
    fail(`no property '${values.property}'; known: ${PROPERTIES.map((p) => p.id).join(', ')}`);
  }
  if (given !== null && values.suite !== undefined) fail('--scenario explores one scenario: drop --suite');
  const suite = values.suite;
  if (suite === undefined) return [...SUITES];
  if (!isOneOf(SUITES, suite)) fail(`no suite '${suite}'; known: ${SUITES.join(', ')}`);
  return [suite];
}

export function readPropertiesOptions(argv: readonly string[]): PropertiesOptions {
  const values = parse(argv);
  const shard = shardOption('properties', values.shard);
  const jobsGiven = jobsOption('properties', values.jobs);
  const strategy = values.strategy ?? 'choices';
  if (!isOneOf(STRATEGIES, strategy))
    fail(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${values.strategy ?? ''}'`);
  const seed = seedOption('properties', values.seed, 20261129);
  const given = values.scenario !== undefined ? loadScenario(values.scenario) : null;
  // on one scenario, an exhaustive search runs to the end of its bound unless --runs caps it
  const searchAll = given !== null && strategy === 'exhaustive';
  const runs = countOption('properties', values.runs, 'runs', searchAll ? Infinity : 1500);
  const seconds = values.seconds !== undefined ? secondsOption('properties', values.seconds, 'seconds', 0) : undefined;
  const flags = searchFlags(values, strategy, given, shard);
  const suites = suitesOf(values, given);
  const reportDir = values.report ?? 'reports';
  // Split DPOR parts redo much of each other's work (properties/search_parts.ts), so one
  // scenario's search takes one job unless asked; a suite's runs are independent: every core.
  const jobs = values.jobs === undefined && searchAll ? 1 : jobsGiven;
  prepareOutputDir('properties', 'report', reportDir);
  return {
    argv,
    shard,
    strategy,
    seed,
    given,
    runs,
    seconds,
    ...flags,
    property: values.property !== undefined && isPropertyId(values.property) ? values.property : undefined,
    suite: values.suite,
    strategyGiven: values.strategy !== undefined,
    suites,
    reportDir,
    // a search of one scenario writes a report of its own, named after it: it leaves the
    // default run's report (every suite) as it was, and the page shows both
    reportName: values.scenario !== undefined ? scenarioReportName(values.scenario) : 'properties',
    jobs,
    bail: values.bail === true,
    quiet: values.quiet === true,
    full: values.full === true,
    // mutation runs name their mutant; a counterexample records it (and its file name shows it)
    mutant: mutantOfEnvironment(),
    ...tierOptions(values, strategy, given),
  };
}

/** `properties-<file name>` for --scenario FILE (letters, digits, `._-` only) */
function scenarioReportName(file: string): string {
  const stem = basename(file).replace(/\.json$/, '');
  return `properties-${fileNamePart(stem)}`;
}

function parsePreemptions(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (v === 'inf' || v === 'none') return Infinity;
  const n = v.trim() === '' ? Number.NaN : Number(v);
  if (!Number.isSafeInteger(n) || n < 0) fail(`--preemptions wants an integer >= 0 or 'inf', got '${v}'`);
  return n;
}

/**
 * A scenario file: a counterexample (checked whole by the one counterexample loader, as
 * `npm run replay` checks it: its scenario) or a bare scenario JSON.
 */
function loadScenario(file: string): Scenario {
  let scenario: Scenario;
  let mutant: string | null = null;
  try {
    const data = readInputJson(file, { what: 'a scenario', maxBytes: MAX_SCENARIO_BYTES });
    if (claimsCounterexample(data)) {
      const cx = counterexampleOf(data, file);
      scenario = cx.scenario;
      mutant = cx.mutant;
    } else {
      scenario = parseScenario(data, file);
    }
  } catch (e) {
    if (e instanceof InputError) fail(`--scenario ${e.message}`);
    throw e;
  }
  if (mutant !== null) {
    // the scenario alone carries no mutant: say so, as `npm run replay` does
    process.stderr.write(
      `properties: note: ${file} was found on mutant ${JSON.stringify(mutant)}; its scenario is explored here on the unmutated sources ` +
        `(npm run mutants -- --replay ${file} replays it with the mutant applied)\n`,
    );
  }
  return scenario;
}
