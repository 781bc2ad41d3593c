/**
 * `npm run properties`: every property over every suite, with a budget.
 *
 *   npm run properties -- [--runs N] [--seconds S] [--seed N] [--property ID]
 *                         [--suite NAME] [--strategy choices|random|pct|exhaustive]
 *                         [--depth D] [--confidence C] [--preemptions P|inf] [--no-reduction]
 *                         [--state-cache] [--shortest] [--jobs N] [--shard i/n]
 *                         [--scenario FILE] [--report DIR] [--bail] [--quiet] [--full]
 *
 * --bail stops at the first suite that finds a violation (mutation runs); --quiet
 * prints no trace (the report and the counterexample file still have everything).
 * --runs is per suite; --seconds is the wall-clock budget for the whole run, shared
 * evenly by the suites. Exits 1 on any violation, 2 on bad arguments.
 *
 * Strategies: `choices` (fast-check generates and shrinks choice lists), `random`
 * (seeded uniform choices), `pct` (PCT of depth --depth, default 2), `exhaustive`
 * (every interleaving up to --preemptions, with sleep-set reduction unless
 * --no-reduction; --state-cache also skips states explored before, see
 * model/explore/state_digest.ts for how far that is sound). --scenario FILE explores one scenario (a counterexample file or a bare
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
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../model/scenario/scenario.js';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { InputError } from '../input/input_error.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { SUITES, type Suite } from '../../properties/arbitraries.js';
import { isPropertyId, propertyInfo, PROPERTIES, type PropertyId } from '../check/catalogue.js';
import { EXIT, exitForViolations } from '../check/exit_codes.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { buildReport, writeReport } from '../../properties/report.js';
import { htmlReportLine, writeHtmlReport } from '../report/write_report.js';
import { replayCounterexample } from '../../properties/runner.js';
import { STRATEGIES, type StrategyName, type SuiteResult } from '../../properties/types.js';
import { Progress } from './progress.js';
import { jobsOption, nonNegativeOption, parseOrFail, runIdentity, shardOption, usageError } from './cli_args.js';
import { joinUnits, runUnits, unitCount, unitsOfShard } from '../../properties/parallel_runs.js';
import { exhaustiveParts, joinSearchParts } from '../../properties/search_parts.js';
import { writeShardFile, type PropertiesShardLabel } from '../report/shard_file.js';

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('properties', message);
}
const intOption = (v: string | undefined, name: string, fallback: number): number => nonNegativeOption('properties', v, name, fallback);

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
    scenario: { type: 'string' },
    shortest: { type: 'boolean' },
    jobs: { type: 'string' },
    shard: { type: 'string' },
  },
  strict: true,
});

const shard = shardOption('properties', values.shard);
const jobsGiven = jobsOption('properties', values.jobs);

const strategy = (values.strategy ?? 'choices') as StrategyName;
if (!STRATEGIES.includes(strategy)) fail(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${values.strategy ?? ''}'`);
const seed = intOption(values.seed, 'seed', 20261129);
const given = values.scenario !== undefined ? loadScenario(values.scenario) : null;
// on one scenario, an exhaustive search runs to the end of its bound unless --runs caps it
const runs = intOption(values.runs, 'runs', given !== null && strategy === 'exhaustive' ? Infinity : 1500);
const seconds = values.seconds !== undefined ? intOption(values.seconds, 'seconds', 60) : undefined;
const depth = values.depth !== undefined ? intOption(values.depth, 'depth', 2) : undefined;
if (depth !== undefined && (!Number.isInteger(depth) || depth < 1)) fail(`--depth wants an integer >= 1, got '${values.depth ?? ''}'`);
const confidence = values.confidence !== undefined ? Number(values.confidence) : undefined;
if (confidence !== undefined && !(confidence > 0 && confidence < 1)) fail(`--confidence wants a number in (0, 1), e.g. 0.99; got '${values.confidence ?? ''}'`);
if (confidence !== undefined && (strategy !== 'pct' || given === null)) {
  fail('--confidence needs --strategy pct and --scenario FILE: the bound holds for one scenario, whose threads and steps it measures');
}
const preemptions = parsePreemptions(values.preemptions);
if ((depth !== undefined || confidence !== undefined) && strategy !== 'pct') fail('--depth and --confidence are for --strategy pct');
if ((preemptions !== undefined || values['no-reduction'] === true || values['state-cache'] === true) && strategy !== 'exhaustive') {
  fail('--preemptions, --no-reduction and --state-cache are for --strategy exhaustive');
}
if (values.shortest === true && (strategy !== 'exhaustive' || given === null)) fail('--shortest needs --strategy exhaustive and --scenario FILE');
if (shard !== null && given !== null && strategy === 'exhaustive' && (values['no-reduction'] === true || preemptions === undefined || Number.isFinite(preemptions))) {
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

function parsePreemptions(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (v === 'inf' || v === 'none') return Infinity;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`--preemptions wants an integer >= 0 or 'inf', got '${v}'`);
  return n;
}

function loadScenario(file: string): Scenario {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`--scenario ${file}: ${(e as Error).message}`);
  }
  const d = data as { format?: unknown; scenario?: unknown } | null;
  const isCounterexample = d !== null && typeof d === 'object' && d.format === 'tierlab-counterexample';
  try {
    return isCounterexample ? parseScenario(d.scenario, file, 'scenario') : parseScenario(data, file);
  } catch (e) {
    if (e instanceof InputError) fail(`--scenario ${e.message}`);
    throw e;
  }
}

const progress = new Progress();
const results: SuiteResult[] = [];
const shardLabels: PropertiesShardLabel[] = [];
const replays = new Map<SuiteResult, string>();
let failed = false;
let failedEarly = false;
const labels: (Suite | 'scenario')[] = given !== null ? ['scenario'] : suites;
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
  };
  progress.update(`[${i + 1}/${labels.length}] ${label}: running on ${jobs} job${jobs === 1 ? '' : 's'} ...`);
  let result: SuiteResult;
  if (given !== null && strategy === 'exhaustive') {
    const request = { ...common, scenario: given, shortest: values.shortest === true };
    const parts = await exhaustiveParts(request, jobs, shard);
    result = joinSearchParts(request, parts);
    shardLabels.push({ label: 'scenario', request, parts });
  } else {
    const request = given !== null ? { ...common, scenario: given } : { ...common, suite: label as Suite };
    const deadline = labelSeconds !== undefined ? Date.now() + labelSeconds * 1000 : null;
    const units = await runUnits(request, jobs, deadline, unitsOfShard(unitCount(request), shard));
    result = joinUnits(request, units);
    shardLabels.push({ label, request, units });
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
    mutant: process.env.TIERLAB_MUTANT ?? null,
    scenario: f.scenario,
    choices: f.choices,
  });
  const replay = `npm run replay -- ${file}`;
  replays.set(result, replay);
  const info = propertyInfo(f.property);
  if (values.bail === true) failedEarly = true;
  if (values.quiet === true) continue;
  const traced = replayCounterexample(f.scenario, f.choices);
  const how = result.strategy === 'choices' ? `fast-check seed ${f.seed} path ${f.path || '-'}` : `shrunk by the prefix minimizer (${result.strategy}, seed ${f.seed})`;
  process.stdout.write(
    [
      '',
      `VIOLATED ${f.property}: ${info?.statement ?? ''}`,
      `  ${f.detail}`,
      `  scenario: ${describeScenario(f.scenario)}`,
      `  schedule (${f.choices.length} choices): [${f.choices.join(',')}]  -> ${f.steps} steps`,
      `  found after ${f.runsToFind} runs in ${f.secondsToFind.toFixed(2)} s; ${f.shrinks} shrinks; ${how}`,
      '',
      traced.trace?.lanes({ last: values.full === true ? undefined : 80 }) ?? '',
      '',
      `  replay: ${replay}`,
      '',
    ].join('\n'),
  );
}

if (shard !== null) {
  const command = runIdentity(process.argv.slice(2));
  writeShardFile(reportDir, { tool: 'properties', index: shard.index, count: shard.count, command, seed, strategy, labels: shardLabels });
}
const report = buildReport(results, { seed, strategy, command: `npm run properties -- ${process.argv.slice(2).join(' ')}`.trim(), replays });
writeReport(reportDir, report, results);
if (values.quiet !== true) process.stderr.write(`${htmlReportLine(await writeHtmlReport(reportDir))}\n`);
const guarantees = results.filter((r) => r.guarantee !== undefined);
if (guarantees.length > 0) {
  // the guarantees also go to the people's report (properties.json has them per suite)
  const md = ['', '## Exploration guarantee', '', ...guarantees.map((r) => `- ${r.strategy}: ${r.guarantee?.statement ?? ''}`), ''];
  appendFileSync(join(reportDir, 'properties.md'), md.join('\n'));
}
const t = report.totals;
process.stdout.write(
  `\n${report.ok ? 'PASS' : 'FAIL'}: ${t.runs} runs, ${Math.round(t.stepsPerSecond).toLocaleString('en-US')} steps/s, ` +
    `${Math.round(t.runsPerSecond)} schedules/s; ${PROPERTIES.length} properties; report in ${reportDir}/properties.md\n`,
);
const violated = new Set<PropertyId>();
for (const r of results) {
  for (const id of Object.keys(r.violations)) if (isPropertyId(id)) violated.add(id);
  if (r.failure !== null) violated.add(r.failure.property);
}
process.exit(failed ? exitForViolations(violated) || EXIT.safety : EXIT.ok);
