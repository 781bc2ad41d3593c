/**
 * `npm run bench`: the simulator's speed and scaling, exhaustive search of the small and
 * medium configurations, the fill_wait race, and time to kill every catalogue mutant under every
 * strategy; on request (`--only upload`), the native engine's uploads against the raw
 * copy of the same library (apps/cli/bench/upload.ts). Writes OUT/bench.json and
 * OUT/bench.md (OUT: reports).
 *
 *   npm run bench -- [--only speed,scaling,exhaustive,race,mutants,upload] [--out DIR]
 *                    [--seconds S] [--repeats R] [--scaling-seconds S]
 *                    [--explore-seconds S] [--race-seeds N] [--race-runs N]
 *                    [--mutant-seconds S] [--jobs N] [--strategies a,b,...]
 *                    [--backend cpu|cuda|vulkan] [--lib PATH] [--device N]
 *                    [--experts-gib G] [--width F] [--hidden H] [--fills N] [--tokens N]
 *
 * Sections run in the order above; the mutation runs come last because they take longest
 * (and run child processes: on a shared machine, give --jobs 1 for steadier times).
 * Exits 1 if a section that ought to pass found a violation (the unmutated tier under a
 * benchmark), 2 on bad arguments.
 */
import { cpus, loadavg } from 'node:os';
import { grownScenarios } from './bench/scaling.js';
import { measureExhaustive } from './bench/exhaustive_bench.js';
import { measureMutants } from './bench/mutants_bench.js';
import { measureRace, RACE_FILE, RACE_REPLACE } from './bench/race.js';
import { measureSpeed } from './bench/speed.js';
import { measureUpload } from './bench/upload.js';
import { libraryPath, NativeEngineLib, NativeError } from '../../src/engine/native/binding.js';
import { writeBenchReport, type BenchReport } from './bench/bench_report.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import { STRATEGIES } from '../../properties/types.js';
import {
  countOption,
  intOption,
  parseOrFail,
  positiveOption,
  reportUnexpectedErrors,
  secondsOption,
  usageError,
} from './cli_args.js';
import { prepareOutputDir, shownPath } from './output_dir.js';

reportUnexpectedErrors('bench');
// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('bench', message);
}

const SECTIONS = ['speed', 'scaling', 'exhaustive', 'race', 'mutants', 'upload'] as const;
type Section = (typeof SECTIONS)[number];
/** what a plain `npm run bench` runs: the upload section needs a native library and a GiB */
const DEFAULT_SECTIONS: readonly Section[] = ['speed', 'scaling', 'exhaustive', 'race', 'mutants'];

const seconds = (v: string | undefined, name: string, fallback: number): number =>
  secondsOption('bench', v, name, fallback);
const count = (v: string | undefined, name: string, fallback: number): number =>
  countOption('bench', v, name, fallback);

const { values } = parseOrFail('bench', {
  options: {
    only: { type: 'string' },
    out: { type: 'string' },
    seconds: { type: 'string' },
    repeats: { type: 'string' },
    'scaling-seconds': { type: 'string' },
    'explore-seconds': { type: 'string' },
    'race-seeds': { type: 'string' },
    'race-runs': { type: 'string' },
    'mutant-seconds': { type: 'string' },
    jobs: { type: 'string' },
    strategies: { type: 'string' },
    backend: { type: 'string' },
    lib: { type: 'string' },
    device: { type: 'string' },
    'experts-gib': { type: 'string' },
    width: { type: 'string' },
    hidden: { type: 'string' },
    fills: { type: 'string' },
    tokens: { type: 'string' },
  },
  strict: true,
});

const only = (values.only ?? DEFAULT_SECTIONS.join(',')).split(',') as Section[];
for (const s of only) if (!SECTIONS.includes(s)) fail(`no section '${s}'; known: ${SECTIONS.join(', ')}`);
const strategies = (values.strategies ?? STRATEGIES.join(',')).split(',');
for (const s of strategies)
  if (!(STRATEGIES as readonly string[]).includes(s)) fail(`no strategy '${s}'; known: ${STRATEGIES.join(', ')}`);
const root = process.cwd();
const outDir = prepareOutputDir('bench', 'out', values.out ?? 'reports');
// every number is read before the first section runs: a typo must not cost minutes
const opts = {
  seconds: seconds(values.seconds, 'seconds', 2),
  repeats: count(values.repeats, 'repeats', 3),
  scalingSeconds: seconds(values['scaling-seconds'], 'scaling-seconds', 1),
  exploreSeconds: seconds(values['explore-seconds'], 'explore-seconds', 120),
  raceSeeds: count(values['race-seeds'], 'race-seeds', 20),
  raceRuns: count(values['race-runs'], 'race-runs', 1500),
  mutantSeconds: seconds(values['mutant-seconds'], 'mutant-seconds', 20),
  jobs: count(values.jobs, 'jobs', cpus().length),
  device: intOption('bench', values.device, 'device', 0, 0x7fffffff, 0),
  expertsGiB: positiveOption('bench', values['experts-gib'], 'experts-gib', 1),
  expertWidth: intOption('bench', values.width, 'width', 64, 8192, 768),
  expertHidden: intOption('bench', values.hidden, 'hidden', 64, 8192, 2048),
  uploadFills: count(values.fills, 'fills', 1),
  uploadTokens: count(values.tokens, 'tokens', 8),
};
const log = (s: string): void => void process.stderr.write(`${s}\n`);

const report: BenchReport = {
  date: new Date().toISOString(),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  machine: { cores: cpus().length, node: process.version, loadAverageAtStart: loadavg(), loadAverageAtEnd: [] },
};
let unexpected = false;

if (only.includes('speed')) {
  const s = defaultScenario();
  const { seconds, repeats } = opts;
  log(`speed: default scenario, ${repeats} x ${seconds} s with every checker on, without the refinement, then off ...`);
  const on = measureSpeed(s, { checks: true, seconds, repeats });
  const noRefinement = measureSpeed(s, { checks: 'no-refinement', seconds, repeats });
  const off = measureSpeed(s, { checks: false, seconds, repeats });
  if (on.violations > 0) unexpected = true;
  report.speed = {
    scenario: describeScenario(s),
    on,
    noRefinement,
    off,
    checkerCost: off.stepsPerSecond / Math.max(1, on.stepsPerSecond),
    refinementCost: noRefinement.stepsPerSecond / Math.max(1, on.stepsPerSecond),
  };
  const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
  log(
    `  ${fmt(on.stepsPerSecond)} steps/s with every checker (${fmt(on.stepsPerCpuSecond)} per CPU second), ${fmt(noRefinement.stepsPerSecond)} without the refinement, ${fmt(off.stepsPerSecond)} without checkers`,
  );
}

if (only.includes('scaling')) {
  const seconds = opts.scalingSeconds;
  report.scaling = [];
  for (const g of grownScenarios(defaultScenario())) {
    log(`scaling: ${g.dimension} = ${g.value} ...`);
    const on = measureSpeed(g.scenario, { checks: true, seconds, repeats: 1, warmupSeconds: 0.2 });
    const off = measureSpeed(g.scenario, { checks: false, seconds, repeats: 1, warmupSeconds: 0.2 });
    if (on.violations > 0) unexpected = true;
    report.scaling.push({ dimension: g.dimension, value: g.value, on, off });
  }
}

if (only.includes('exhaustive')) {
  const { section, unexpected: found } = await measureExhaustive(opts.exploreSeconds, log);
  report.exhaustive = section;
  if (found) unexpected = true;
}

if (only.includes('race')) {
  const seeds = opts.raceSeeds;
  const runsPerSuite = opts.raceRuns;
  log(`race: fill_wait on st.qn, ${seeds} seeds x ${strategies.join(', ')} ...`);
  const rows = await measureRace(root, strategies, seeds, runsPerSuite);
  report.race = { file: RACE_FILE, change: RACE_REPLACE, seeds, runsPerSuite, rows };
}

if (only.includes('mutants')) {
  report.mutants = await measureMutants(root, strategies, opts.mutantSeconds, opts.jobs, log);
}

if (only.includes('upload')) {
  const backend = values.backend ?? 'cpu';
  if (!['cpu', 'cuda', 'vulkan'].includes(backend)) fail(`--backend must be cpu, cuda or vulkan, got '${backend}'`);
  let lib: NativeEngineLib;
  try {
    lib = new NativeEngineLib(values.lib ?? libraryPath(backend));
  } catch (e) {
    fail(e instanceof NativeError ? e.message : String(e));
  }
  if (lib.backend !== backend) fail(`${lib.path} is the ${lib.backend} engine, not ${backend}`);
  report.upload = await measureUpload({
    lib,
    device: opts.device,
    expertGiB: opts.expertsGiB,
    width: opts.expertWidth,
    hidden: opts.expertHidden,
    fills: opts.uploadFills,
    tokens: opts.uploadTokens,
    log,
  });
  if (report.upload.problems.length > 0) unexpected = true;
}

report.machine.loadAverageAtEnd = loadavg();
writeBenchReport(outDir, report);
process.stderr.write(`${htmlReportLine(await writeHtmlReport(outDir, { onProgress: progressTo('bench') }))}\n`);
log(`report in ${shownPath(`${outDir}/bench.md`)}`);
process.exit(unexpected ? 1 : 0);
