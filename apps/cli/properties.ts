/**
 * `npm run properties`: every property over every suite, with a budget.
 *
 *   npm run properties -- [--runs N] [--seconds S] [--seed N] [--property ID]
 *                         [--suite NAME] [--strategy choices|random|pct|exhaustive]
 *                         [--depth D] [--confidence C] [--preemptions P|inf] [--no-reduction]
 *                         [--state-cache] [--replay] [--shortest] [--jobs N] [--shard i/n]
 *                         [--scenario FILE] [--report DIR] [--bail] [--quiet] [--full]
 *                         [--tier ts|c] [--level 1|2] [--fresh]
 *
 * --bail stops at the first suite that finds a violation (mutation runs); --quiet
 * prints no trace (the report and the counterexample file still have everything).
 * --runs is per suite (default 1500; at least 1); --seconds is the wall-clock budget for
 * the whole run, shared evenly by the suites (default none). Exits 0 when every property
 * held, 1 on a safety violation, 3 on a liveness violation, 4 when a guarantee (PCT or
 * exhaustive search on one scenario) was cut short by its budget, 2 on bad input
 * (src/check/exit_codes.ts). A default run (no --scenario, --suite, --strategy or --shard)
 * ends with the complete searches of properties/searched_scenarios.ts: races the suites'
 * sampled schedules almost never reach.
 *
 * Strategies: `choices` (fast-check generates and shrinks choice lists), `random`
 * (seeded uniform choices), `pct` (PCT of depth --depth, default 2), `exhaustive`
 * (every interleaving up to --preemptions, with sleep-set reduction unless
 * --no-reduction; --state-cache also skips states explored before, see
 * model/explore/state/state_digest.ts for how far that is sound; --replay makes the unbounded
 * DPOR search with the cache replay each run from the start instead of going on from the
 * state saved where it branches, model/explore/state/restore/). --scenario FILE explores one scenario (a counterexample file or a bare
 * scenario JSON) instead of the suites; that is where the guarantees are: `pct
 * --confidence 0.99` runs as often as PCT's bound needs, `exhaustive --preemptions 2`
 * covers every schedule with at most 2 preemptions. The guarantee is printed and
 * written to the report (suites[].guarantee in properties.json). --shortest (exhaustive
 * on one scenario) reports the counterexample of the fewest steps instead of the
 * minimizer's.
 *
 * --jobs N runs the work on N worker threads: a suite's runs in blocks of fixed seeds
 * (properties/parallel_runs.ts; default every core), an exhaustive search of one scenario
 * in parts of its tree (properties/search_parts.ts; default 1, as the parts overlap); the
 * verdicts are those of one job. --shard i/n runs part i (from 0) of n, for a CI matrix: it also writes
 * DIR/shard.json, and `npm run report -- merge DIR...` joins the n shards' reports.
 *
 * --tier c runs the same suites on the C tier (native/tier/) under tierlab's scheduler
 * (apps/cli/ctier_properties.ts): --level 2 (default) with its event log, 1 by its boundary
 * only; --fresh runs each schedule in a forked child.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../model/scenario/scenario.js';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { InputError } from '../../src/input/input_error.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { mutantOfEnvironment } from '../../properties/counterexample_file.js';
import { SUITES, type Suite } from '../../properties/arbitraries.js';
import { isPropertyId, propertyInfo, PROPERTIES, type PropertyId } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations } from '../../src/check/exit_codes.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { buildReport, writeReport } from '../../properties/report.js';
import { htmlReportLine, writeHtmlReport } from '../report/write_report.js';
import { printedTrace, replayCounterexample } from '../../properties/runner.js';
import { STRATEGIES, type StrategyName, type SuiteResult } from '../../properties/types.js';
import { Progress } from './progress.js';
import {
  countOption,
  intOption,
  jobsOption,
  parseOrFail,
  reportUnexpectedErrors,
  runIdentity,
  secondsOption,
  seedOption,
  shardOption,
  usageError,
} from './cli_args.js';
import { joinUnits, runUnits, unitCount, unitSize, unitsOfShard } from '../../properties/parallel_runs.js';
import { exhaustiveParts, joinSearchParts } from '../../properties/search_parts.js';
import { SEARCHED_SCENARIOS, searchedRequest } from '../../properties/searched_scenarios.js';
import { writeShardFile, type PropertiesShardLabel } from '../report/shard_file.js';
import { prepareOutputDir } from './output_dir.js';
import { ctierProperties } from './ctier_properties.js';

reportUnexpectedErrors('properties');
/** PCT depths beyond this make the bound 1/(n k^(d-1)) too small to plan runs with */
const MAX_PCT_DEPTH = 16;
// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('properties', message);
}

const { values } = parseOrFail('properties', {
  options: {
    runs: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    property: { type: 'string' },
    suite: { type: 'string' },
    strategy: { type: 'string' },
    report: { type: 'string' },
    full: { type: 'boolean' },
    bail: { type: 'boolean' },
    quiet: { type: 'boolean' },
    depth: { type: 'string' },
    confidence: { type: 'string' },
    preemptions: { type: 'string' },
    'no-reduction': { type: 'boolean' },
    'state-cache': { type: 'boolean' },
    replay: { type: 'boolean' },
    scenario: { type: 'string' },
    shortest: { type: 'boolean' },
    jobs: { type: 'string' },
    shard: { type: 'string' },
    tier: { type: 'string' },
    level: { type: 'string' },
    fresh: { type: 'boolean' },
  },
  strict: true,
});

const shard = shardOption('properties', values.shard);
const jobsGiven = jobsOption('properties', values.jobs);

const strategy = (values.strategy ?? 'choices') as StrategyName;
if (!STRATEGIES.includes(strategy))
  fail(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${values.strategy ?? ''}'`);
const seed = seedOption('properties', values.seed, 20261129);
const given = values.scenario !== undefined ? loadScenario(values.scenario) : null;
// on one scenario, an exhaustive search runs to the end of its bound unless --runs caps it
const runs = countOption(
  'properties',
  values.runs,
  'runs',
  given !== null && strategy === 'exhaustive' ? Infinity : 1500,
);
const seconds = values.seconds !== undefined ? secondsOption('properties', values.seconds, 'seconds', 0) : undefined;
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
if (
  (preemptions !== undefined ||
    values['no-reduction'] === true ||
    values['state-cache'] === true ||
    values.replay === true) &&
  strategy !== 'exhaustive'
) {
  fail('--preemptions, --no-reduction, --state-cache and --replay are for --strategy exhaustive');
}
if (values.shortest === true && (strategy !== 'exhaustive' || given === null))
  fail('--shortest needs --strategy exhaustive and --scenario FILE');
if (
  shard !== null &&
  given !== null &&
  strategy === 'exhaustive' &&
  (values['no-reduction'] === true || preemptions === undefined || Number.isFinite(preemptions))
) {
  fail('--shard splits an unbounded DPOR search of one scenario: give --preemptions inf, without --no-reduction');
}
if (values.property !== undefined && !isPropertyId(values.property)) {
  fail(`no property '${values.property}'; known: ${PROPERTIES.map((p) => p.id).join(', ')}`);
}
if (given !== null && values.suite !== undefined) fail('--scenario explores one scenario: drop --suite');
const suites: Suite[] = values.suite !== undefined ? [values.suite as Suite] : [...SUITES];
for (const s of suites) if (!SUITES.includes(s)) fail(`no suite '${s}'; known: ${SUITES.join(', ')}`);
const reportDir = values.report ?? 'reports';
// Split DPOR parts redo much of each other's work (properties/search_parts.ts), so one
// scenario's search takes one job unless asked; a suite's runs are independent: every core.
const jobs = values.jobs === undefined && given !== null && strategy === 'exhaustive' ? 1 : jobsGiven;
prepareOutputDir('properties', 'report', reportDir);
// mutation runs name their mutant; a counterexample records it (and its file name shows it)
const mutant = mutantOfEnvironment();

function parsePreemptions(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (v === 'inf' || v === 'none') return Infinity;
  const n = v.trim() === '' ? Number.NaN : Number(v);
  if (!Number.isSafeInteger(n) || n < 0) fail(`--preemptions wants an integer >= 0 or 'inf', got '${v}'`);
  return n;
}

function loadScenario(file: string): Scenario {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`--scenario ${file}: ${(e as Error).message}`);
  }
  const d = data as { format?: unknown; scenario?: unknown; mutant?: unknown } | null;
  const isCounterexample = d !== null && typeof d === 'object' && d.format === 'tierlab-counterexample';
  let scenario: Scenario;
  try {
    scenario = isCounterexample ? parseScenario(d.scenario, file, 'scenario') : parseScenario(data, file);
  } catch (e) {
    if (e instanceof InputError) fail(`--scenario ${e.message}`);
    throw e;
  }
  if (isCounterexample && typeof d.mutant === 'string') {
    // the scenario alone carries no mutant: say so, as `npm run replay` does
    process.stderr.write(
      `properties: note: ${file} was found on mutant ${JSON.stringify(d.mutant)}; its scenario is explored here on the unmutated sources ` +
        `(npm run mutants -- --replay ${file} replays it with the mutant applied)\n`,
    );
  }
  return scenario;
}

if (values.tier !== undefined && values.tier !== 'ts' && values.tier !== 'c')
  fail(`--tier must be ts or c, got '${values.tier}'`);
if (values.tier !== 'c' && (values.level !== undefined || values.fresh === true))
  fail('--level and --fresh are for --tier c');
if (values.tier === 'c') {
  const level = values.level === undefined ? 2 : values.level === '1' ? 1 : values.level === '2' ? 2 : 0;
  if (level === 0) fail(`--level must be 1 or 2, got '${values.level ?? ''}'`);
  if (values.jobs !== undefined || shard !== null || preemptions !== undefined || values['state-cache'] === true)
    fail(
      '--tier c runs on one job, unsharded, with the plain exhaustive search: drop --jobs, --shard, --preemptions, --state-cache',
    );
  if (strategy === 'exhaustive' && given === null) fail('--tier c --strategy exhaustive wants --scenario FILE');
  ctierProperties({
    suites,
    scenario: given,
    seed,
    runs: given !== null && strategy === 'exhaustive' && values.runs === undefined ? 100_000 : runs,
    ...(seconds !== undefined ? { seconds } : {}),
    ...(values.property !== undefined ? { property: values.property as PropertyId } : {}),
    strategy,
    ...(depth !== undefined ? { depth } : {}),
    level: level === 1 ? 1 : 2,
    fresh: values.fresh === true,
    reportDir,
    bail: values.bail === true,
    quiet: values.quiet === true,
    full: values.full === true,
    mutant,
    args: process.argv.slice(2),
  });
}

const progress = new Progress();
const results: SuiteResult[] = [];
const shardLabels: PropertiesShardLabel[] = [];
const replays = new Map<SuiteResult, string>();
let failed = false;
let failedEarly = false;
// a default run (the one mutation runs make) also searches the committed scenarios the
// random suites cannot reach (properties/searched_scenarios.ts); shard files hold suites only
const searched =
  given === null && values.suite === undefined && values.strategy === undefined && shard === null
    ? SEARCHED_SCENARIOS
    : [];
const labels: string[] = given !== null ? ['scenario'] : [...suites, ...searched.map((n) => `search ${n}`)];
for (const [i, label] of labels.entries()) {
  if (failedEarly) break;
  const labelSeconds = seconds !== undefined ? seconds / labels.length : undefined;
  const common = {
    seed: seed + i,
    runs,
    ...(labelSeconds !== undefined ? { seconds: labelSeconds } : {}),
    ...(values.property !== undefined ? { property: values.property as PropertyId } : {}),
    strategy,
    depth,
    confidence,
    preemptions,
    reduction: values['no-reduction'] !== true,
    stateCache: values['state-cache'] === true,
    replay: values.replay === true,
  };
  const searchedName = i >= suites.length && given === null ? searched[i - suites.length] : undefined;
  const labelJobs = searchedName !== undefined ? 1 : jobs;
  progress.update(`[${i + 1}/${labels.length}] ${label}: running on ${labelJobs} job${labelJobs === 1 ? '' : 's'} ...`);
  let result: SuiteResult;
  if (searchedName !== undefined) {
    const request = searchedRequest(searchedName, common);
    const whole = joinSearchParts(request, await exhaustiveParts(request, 1, null));
    // nobody asked for a guarantee: a search the budget cut short is a sample, as a suite's runs are
    const { guarantee, ...rest } = whole;
    result = guarantee === undefined || guarantee.complete ? whole : rest;
    if (result !== whole)
      progress.done(`  ${label}: cut short by the budget (${guarantee?.schedules ?? 0} schedules searched)`);
  } else if (given !== null && strategy === 'exhaustive') {
    const request = { ...common, scenario: given, shortest: values.shortest === true };
    const parts = await exhaustiveParts(request, jobs, shard);
    result = joinSearchParts(request, parts);
    shardLabels.push({ label: 'scenario', request, parts });
  } else {
    const request = given !== null ? { ...common, scenario: given } : { ...common, suite: label as Suite };
    const size = unitSize(request, shard !== null ? shard.count : jobs);
    const units = await runUnits(request, size, jobs, unitsOfShard(unitCount(request, size), shard));
    result = joinUnits(request, units);
    shardLabels.push({ label: given !== null ? 'scenario' : (label as Suite), request, units });
  }
  results.push(result);
  const speed = result.seconds > 0 ? Math.round(result.steps / result.seconds) : 0;
  progress.done(
    `[${i + 1}/${labels.length}] ${label.padEnd(10)} ${String(result.runs).padStart(6)} runs ${result.seconds.toFixed(1).padStart(6)} s ` +
      `${speed.toLocaleString('en-US').padStart(10)} steps/s  ${result.failure === null ? (Object.keys(result.violations).length > 0 ? 'VIOLATIONS' : 'ok') : 'FAIL ' + result.failure.property}`,
  );
  if (result.guarantee !== undefined) progress.done(`  ${result.guarantee.statement}`);
  if (Object.keys(result.violations).length > 0) failed = true;
  const f = result.failure;
  if (f === null) continue;
  failed = true;
  const file = saveCounterexample(`${reportDir}/counterexamples`, {
    property: f.property,
    detail: f.detail,
    mutant,
    scenario: f.scenario,
    choices: f.choices,
  });
  const replay = `npm run replay -- ${file}`;
  replays.set(result, replay);
  const info = propertyInfo(f.property);
  if (values.bail === true) failedEarly = true;
  if (values.quiet === true) continue;
  const traced = replayCounterexample(f.scenario, f.choices);
  const how =
    result.strategy === 'choices'
      ? `fast-check seed ${f.seed} path ${f.path || '-'}`
      : `shrunk by the prefix minimizer (${result.strategy}, seed ${f.seed})`;
  process.stdout.write(
    [
      '',
      `VIOLATED ${f.property}: ${info?.statement ?? ''}`,
      `  ${f.detail}`,
      `  scenario: ${describeScenario(f.scenario)}`,
      `  schedule (${f.choices.length} choices): [${f.choices.join(',')}]  -> ${f.steps} steps`,
      `  found after ${f.runsToFind} runs in ${f.secondsToFind.toFixed(2)} s; ${f.shrinks} shrinks; ${how}`,
      '',
      printedTrace(traced, values.full === true),
      '',
      `  replay: ${replay}`,
      '',
    ].join('\n'),
  );
}

const args = process.argv.slice(2);
if (shard !== null) {
  writeShardFile(reportDir, {
    tool: 'properties',
    index: shard.index,
    count: shard.count,
    command: runIdentity(args),
    seed,
    strategy,
    labels: shardLabels,
  });
}
const command = `npm run properties${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
const report = buildReport(results, { seed, strategy, command, replays });
writeReport(reportDir, report, results);
if (values.quiet !== true) process.stderr.write(`${htmlReportLine(await writeHtmlReport(reportDir))}\n`);
const guarantees = results.filter((r) => r.guarantee !== undefined);
if (guarantees.length > 0) {
  // the guarantees also go to the people's report (properties.json has them per suite);
  // each statement starts with its strategy
  const md = ['', '## Exploration guarantee', '', ...guarantees.map((r) => `- ${r.guarantee?.statement ?? ''}`), ''];
  appendFileSync(join(reportDir, 'properties.md'), md.join('\n'));
}
const t = report.totals;
// a guarantee cut short by its budget is not a pass: it promised more than it checked
const verdict = !report.ok ? 'FAIL' : report.complete ? 'PASS' : 'INCOMPLETE';
process.stdout.write(
  `\n${verdict}: ${t.runs} runs, ${Math.round(t.stepsPerSecond).toLocaleString('en-US')} steps/s, ` +
    `${Math.round(t.runsPerSecond)} schedules/s; ${PROPERTIES.length} properties` +
    `${verdict !== 'INCOMPLETE' ? '' : shard !== null ? '; a shard alone promises nothing: join every shard with npm run report -- merge' : '; the guarantee was cut short by the budget (raise --seconds or --runs)'}` +
    `; report in ${reportDir}/properties.md\n`,
);
const violated = new Set<PropertyId>();
for (const r of results) {
  for (const id of Object.keys(r.violations)) if (isPropertyId(id)) violated.add(id);
  if (r.failure !== null) violated.add(r.failure.property);
}
process.exit(failed ? exitForViolations(violated) || EXIT.safety : report.complete ? EXIT.ok : EXIT.incomplete);
