/**
 * `npm run properties`: every property over every suite, with a budget.
 *
 *   npm run properties -- [--runs N] [--seconds S] [--seed N] [--property ID]
 *                         [--suite NAME] [--strategy choices|random] [--report DIR]
 *                         [--bail] [--quiet] [--full]
 *
 * --bail stops at the first suite that finds a violation (mutation runs); --quiet
 * prints no trace (the report and the counterexample file still have everything).
 * --runs is per suite; --seconds is the wall-clock budget for the whole run, shared
 * evenly by the suites. Exits 1 on any violation, 2 on bad arguments.
 */
import { parseArgs } from 'node:util';
import { describeScenario } from '../../model/scenario.js';
import { SUITES, type Suite } from '../../properties/arbitraries.js';
import { propertyInfo, PROPERTIES } from '../../properties/catalogue.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { buildReport, writeReport } from '../../properties/report.js';
import { checkSuite, replayCounterexample, type StrategyName, type SuiteResult } from '../../properties/runner.js';
import { Progress } from './progress.js';

function fail(message: string): never {
  process.stderr.write(`properties: ${message}\n`);
  process.exit(2);
}

function intOption(v: string | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} wants a non-negative number, got '${v}'`);
  return n;
}

const { values } = parseArgs({
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
  },
  strict: true,
});

const seed = intOption(values.seed, 'seed', 20261129);
const runs = intOption(values.runs, 'runs', 1500);
const seconds = values.seconds !== undefined ? intOption(values.seconds, 'seconds', 60) : undefined;
const strategy = (values.strategy ?? 'choices') as StrategyName;
if (strategy !== 'choices' && strategy !== 'random') fail(`--strategy must be choices or random, got '${strategy}'`);
if (values.property !== undefined && propertyInfo(values.property) === undefined) {
  fail(`no property '${values.property}'; known: ${PROPERTIES.map((p) => p.id).join(', ')}`);
}
const suites: Suite[] = values.suite !== undefined ? [values.suite as Suite] : [...SUITES];
for (const s of suites) if (!SUITES.includes(s)) fail(`no suite '${s}'; known: ${SUITES.join(', ')}`);
const reportDir = values.report ?? 'reports';

const progress = new Progress();
const results: SuiteResult[] = [];
const replays = new Map<SuiteResult, string>();
let failed = false;
let failedEarly = false;
for (const [i, suite] of suites.entries()) {
  if (failedEarly) break;
  const started = Date.now();
  const result = checkSuite({
    suite,
    seed: seed + i,
    runs,
    seconds: seconds !== undefined ? seconds / suites.length : undefined,
    property: values.property,
    strategy,
    onProgress: (n) => progress.update(`[${i + 1}/${suites.length}] ${suite}: ${n} runs, ${((Date.now() - started) / 1000).toFixed(1)} s`),
  });
  results.push(result);
  const speed = result.seconds > 0 ? Math.round(result.steps / result.seconds) : 0;
  progress.done(
    `[${i + 1}/${suites.length}] ${suite.padEnd(10)} ${String(result.runs).padStart(6)} runs ${result.seconds.toFixed(1).padStart(6)} s ` +
      `${speed.toLocaleString('en-US').padStart(10)} steps/s  ${result.failure === null ? (Object.keys(result.violations).length > 0 ? 'VIOLATIONS' : 'ok') : 'FAIL ' + result.failure.property}`,
  );
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
  process.stdout.write(
    [
      '',
      `VIOLATED ${f.property}: ${info?.statement ?? ''}`,
      `  ${f.detail}`,
      `  scenario: ${describeScenario(f.scenario)}`,
      `  schedule (${f.choices.length} choices): [${f.choices.join(',')}]  -> ${f.steps} steps`,
      `  found after ${f.runsToFind} runs in ${f.secondsToFind.toFixed(2)} s; ${f.shrinks} shrinks; fast-check seed ${f.seed} path ${f.path || '-'}`,
      '',
      traced.trace?.lanes({ last: values.full === true ? undefined : 80 }) ?? '',
      '',
      `  replay: ${replay}`,
      '',
    ].join('\n'),
  );
}

const report = buildReport(results, { seed, strategy, command: `npm run properties -- ${process.argv.slice(2).join(' ')}`.trim(), replays });
writeReport(reportDir, report, results);
const t = report.totals;
process.stdout.write(
  `\n${report.ok ? 'PASS' : 'FAIL'}: ${t.runs} runs, ${Math.round(t.stepsPerSecond).toLocaleString('en-US')} steps/s, ` +
    `${Math.round(t.runsPerSecond)} schedules/s; ${PROPERTIES.length} properties; report in ${reportDir}/properties.md\n`,
);
process.exit(failed ? 1 : 0);
