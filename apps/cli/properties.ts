/**
 * `npm run properties`: every property over every suite, with a budget.
 *
 *   npm run properties -- [--runs N] [--seconds S] [--seed N] [--property ID]
 *                         [--suite NAME] [--strategy choices|random|pct|exhaustive]
 *                         [--depth D] [--confidence C] [--preemptions P|inf] [--no-reduction]
 *                         [--state-cache | --no-state-cache] [--replay] [--shortest] [--jobs N] [--shard i/n]
 *                         [--scenario FILE] [--report DIR] [--bail] [--quiet] [--full]
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
 * --tier c [--level 1|2] [--fresh] runs the same suites on the C tier (native/tier/) under
 * tierlab's scheduler (apps/cli/ctier_properties.ts).
 */
import { join } from 'node:path';
import { describeScenario } from '../../model/scenario/scenario.js';
import type { Suite } from '../../properties/arbitraries.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { joinUnits, runUnits, unitCount, unitSize, unitsOfShard } from '../../properties/parallel_runs.js';
import { buildReport, writeReport, type PropertiesReport } from '../../properties/report.js';
import { printedTrace, replayCounterexample } from '../../properties/runner.js';
import { exhaustiveParts, joinSearchParts } from '../../properties/search_parts.js';
import { SEARCHED_SCENARIOS, searchedRequest } from '../../properties/searched_scenarios.js';
import type { SuiteResult } from '../../properties/types.js';
import { isPropertyId, propertyInfo, PROPERTIES, type PropertyId } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations, type ExitCode } from '../../src/check/exit_codes.js';
import { writeShardFile, type PropertiesShardLabel } from '../report/shard_file.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { runIdentity } from './cli_args.js';
import { shownPath } from './output_dir.js';
import { Progress } from './progress.js';
import { readPropertiesOptions, type PropertiesOptions } from './properties_options.js';
import { ctierProperties } from './ctier_properties.js';

/** What the run has found so far, label by label. */
interface Run {
  readonly results: SuiteResult[];
  readonly shardLabels: PropertiesShardLabel[];
  readonly replays: Map<SuiteResult, string>;
  failed: boolean;
  failedEarly: boolean;
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = readPropertiesOptions(argv);
  if (o.tier === 'c') return ctierProperties(o);
  const progress = new Progress();
  const run: Run = { results: [], shardLabels: [], replays: new Map(), failed: false, failedEarly: false };
  // a default run (the one mutation runs make) also searches the committed scenarios the
  // random suites cannot reach (properties/searched_scenarios.ts); shard files hold suites only
  const searched =
    o.given === null && o.suite === undefined && !o.strategyGiven && o.shard === null ? SEARCHED_SCENARIOS : [];
  const labels: string[] = o.given !== null ? ['scenario'] : [...o.suites, ...searched.map((n) => `search ${n}`)];
  for (const [i, label] of labels.entries()) {
    if (run.failedEarly) break;
    const searchedName = i >= o.suites.length && o.given === null ? searched[i - o.suites.length] : undefined;
    const labelJobs = searchedName !== undefined ? 1 : o.jobs;
    progress.update(
      `[${i + 1}/${labels.length}] ${label}: running on ${labelJobs} job${labelJobs === 1 ? '' : 's'} ...`,
    );
    // long searches say how far they got (a line every few seconds off a terminal)
    const onProgress = (line: string): void => progress.update(`[${i + 1}/${labels.length}] ${label}: ${line}`);
    const result = await runLabel(o, run, label, i, labels.length, searchedName, progress, onProgress);
    run.results.push(result);
    const speed = result.seconds > 0 ? Math.round(result.steps / result.seconds) : 0;
    progress.done(
      `[${i + 1}/${labels.length}] ${label.padEnd(10)} ${String(result.runs).padStart(6)} runs ${result.seconds.toFixed(1).padStart(6)} s ` +
        `${speed.toLocaleString('en-US').padStart(10)} steps/s  ${result.failure === null ? (Object.keys(result.violations).length > 0 ? 'VIOLATIONS' : 'ok') : 'FAIL ' + result.failure.property}`,
    );
    if (result.guarantee !== undefined) progress.done(`  ${result.guarantee.statement}`);
    if (Object.keys(result.violations).length > 0) run.failed = true;
    if (result.failure !== null) reportFailure(o, run, result);
  }
  return finish(o, run);
}

/** One label's run: a suite's runs, the search of one scenario, or a committed scenario's search. */
async function runLabel(
  o: PropertiesOptions,
  run: Run,
  label: string,
  i: number,
  labelCount: number,
  searchedName: string | undefined,
  progress: Progress,
  onProgress: (line: string) => void,
): Promise<SuiteResult> {
  const labelSeconds = o.seconds !== undefined ? o.seconds / labelCount : undefined;
  const common = {
    seed: o.seed + i,
    runs: o.runs,
    ...(labelSeconds !== undefined ? { seconds: labelSeconds } : {}),
    ...(o.property !== undefined ? { property: o.property } : {}),
    strategy: o.strategy,
    depth: o.depth,
    confidence: o.confidence,
    preemptions: o.preemptions,
    reduction: o.reduction,
    stateCache: o.stateCache,
    replay: o.replay,
  };
  if (searchedName !== undefined) {
    const request = searchedRequest(searchedName, common);
    const whole = joinSearchParts(request, await exhaustiveParts(request, 1, null, onProgress), onProgress);
    // nobody asked for a guarantee: a search the budget cut short is a sample, as a suite's runs are
    const { guarantee, ...rest } = whole;
    const result = guarantee === undefined || guarantee.complete ? whole : rest;
    if (result !== whole)
      progress.done(`  ${label}: cut short by the budget (${guarantee?.schedules ?? 0} schedules searched)`);
    return result;
  }
  if (o.given !== null && o.strategy === 'exhaustive') {
    const request = { ...common, scenario: o.given, shortest: o.shortest };
    const parts = await exhaustiveParts(request, o.jobs, o.shard, onProgress);
    run.shardLabels.push({ label: 'scenario', request, parts });
    return joinSearchParts(request, parts, onProgress);
  }
  const request = o.given !== null ? { ...common, scenario: o.given } : { ...common, suite: label as Suite };
  const size = unitSize(request, o.shard !== null ? o.shard.count : o.jobs);
  const onUnits = (done: number, total: number): void => onProgress(`${done} of ${total} blocks of runs done`);
  const units = await runUnits(request, size, o.jobs, unitsOfShard(unitCount(request, size), o.shard), onUnits);
  run.shardLabels.push({ label: o.given !== null ? 'scenario' : (label as Suite), request, units });
  return joinUnits(request, units);
}

/** A counterexample: saved, and (unless --quiet) printed with its trace and replay command. */
function reportFailure(o: PropertiesOptions, run: Run, result: SuiteResult): void {
  const f = result.failure;
  if (f === null) return;
  run.failed = true;
  const file = saveCounterexample(`${o.reportDir}/counterexamples`, {
    property: f.property,
    detail: f.detail,
    mutant: o.mutant,
    scenario: f.scenario,
    choices: f.choices,
  });
  const replay = `npm run replay -- ${shownPath(file)}`;
  run.replays.set(result, replay);
  const info = propertyInfo(f.property);
  if (o.bail) run.failedEarly = true;
  if (o.quiet) return;
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
      printedTrace(traced, o.full),
      '',
      `  replay: ${replay}`,
      '',
    ].join('\n'),
  );
}

/** The reports (shard file, JSON and markdown, HTML), the verdict line and the exit code. */
async function finish(o: PropertiesOptions, run: Run): Promise<ExitCode> {
  const { results } = run;
  if (o.shard !== null) {
    writeShardFile(o.reportDir, {
      tool: 'properties',
      index: o.shard.index,
      count: o.shard.count,
      command: runIdentity(o.argv),
      seed: o.seed,
      strategy: o.strategy,
      labels: run.shardLabels,
    });
  }
  const command = `npm run properties${o.argv.length > 0 ? ` -- ${o.argv.join(' ')}` : ''}`;
  const report = buildReport(results, { seed: o.seed, strategy: o.strategy, command, replays: run.replays });
  writeReport(o.reportDir, report, results, o.reportName);
  if (!o.quiet) {
    const page = await writeHtmlReport(o.reportDir, { onProgress: progressTo('properties') });
    process.stderr.write(`${htmlReportLine(page)}\n`);
  }
  process.stdout.write(verdictLine(o, report));
  const violated = new Set<PropertyId>();
  for (const r of results) {
    for (const id of Object.keys(r.violations)) if (isPropertyId(id)) violated.add(id);
    if (r.failure !== null) violated.add(r.failure.property);
  }
  if (run.failed) return exitForViolations(violated) || EXIT.safety;
  return report.complete ? EXIT.ok : EXIT.incomplete;
}

function verdictLine(o: PropertiesOptions, report: PropertiesReport): string {
  const t = report.totals;
  // a guarantee cut short by its budget is not a pass: it promised more than it checked
  const verdict = !report.ok ? 'FAIL' : report.complete ? 'PASS' : 'INCOMPLETE';
  const cut =
    verdict !== 'INCOMPLETE'
      ? ''
      : o.shard !== null
        ? '; a shard alone promises nothing: join every shard with npm run report -- merge'
        : '; the guarantee was cut short by the budget (raise --seconds or --runs)';
  return (
    `\n${verdict}: ${t.runs} runs, ${Math.round(t.stepsPerSecond).toLocaleString('en-US')} steps/s, ` +
    `${Math.round(t.runsPerSecond)} schedules/s; ${PROPERTIES.length} properties${cut}` +
    `; report in ${shownPath(join(o.reportDir, `${o.reportName}.md`))}\n`
  );
}
