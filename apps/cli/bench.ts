/**
 * `npm run bench`: the simulator's speed and scaling, exhaustive search of the small and
 * medium configurations, the fill_wait race, and time to kill every catalogue mutant under every
 * strategy; on request (`--only upload`), the native engine's uploads against the raw
 * copy of the same library (apps/cli/bench/upload.ts). Writes OUT/bench.json and
 * OUT/bench.md (OUT: reports).
 *
 *   npm run bench -- [--only speed,scaling,exhaustive,race,mutants,upload,check-trace] [--out DIR]
 *                    [--seconds S] [--repeats R] [--scaling-seconds S]
 *                    [--explore-seconds S] [--race-seeds N] [--race-runs N]
 *                    [--mutant-seconds S] [--jobs N] [--strategies a,b,...]
 *                    [--backend cpu|cuda|vulkan] [--lib PATH] [--device N]
 *                    [--experts-gib G] [--width F] [--hidden H] [--fills N] [--tokens N]
 *   npm run bench -- --only ctier [--ctier-runs N] [--speed-runs N] [--per-scenario N]
 *                    [--stress-iterations N] [--tsan-iterations N] [--sleep-us U] [--seed S]
 *                    [--mutant ID,...]
 *
 * The ctier section (apps/cli/bench/ctier_bench.ts) is run only on request: it builds every
 * C catalogue defect with its harness and stress programs and runs the stress test (minutes).
 * Sections run in the order above (each a function of apps/cli/bench/sections.ts); the
 * mutation runs come last because they take longest
 * (and run child processes: on a shared machine, give --jobs 1 for steadier times).
 * Exits 1 if a section that ought to pass found a violation (the unmutated tier under a
 * benchmark), 2 on bad arguments.
 */
import { cpus, loadavg } from 'node:os';
import type { ExitCode } from '../../src/check/exit_codes.js';
import { STRATEGIES } from '../../properties/types.js';
import { writeBenchReport, type BenchReport } from './bench/bench_report.js';
import { BENCH_SECTIONS, DEFAULT_SECTIONS, runSection, type BenchOptions } from './bench/sections.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import {
  countOption,
  intOption,
  isOneOf,
  parseOrFail,
  positiveOption,
  secondsOption,
  seedOption,
  sharedOptions,
  usageError,
} from './cli_args.js';
import { prepareOutputDir, shownPath } from './output_dir.js';

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('bench', message);
}

function parse(argv: readonly string[]) {
  return parseOrFail('bench', argv, {
    options: {
      ...sharedOptions('only', 'out', 'seconds', 'jobs', 'backend', 'lib', 'tokens', 'seed'),
      repeats: { type: 'string' },
      'scaling-seconds': { type: 'string' },
      'explore-seconds': { type: 'string' },
      'race-seeds': { type: 'string' },
      'race-runs': { type: 'string' },
      'mutant-seconds': { type: 'string' },
      strategies: { type: 'string' },
      device: { type: 'string' },
      'experts-gib': { type: 'string' },
      width: { type: 'string' },
      hidden: { type: 'string' },
      fills: { type: 'string' },
      'ctier-runs': { type: 'string' },
      'speed-runs': { type: 'string' },
      'per-scenario': { type: 'string' },
      'stress-iterations': { type: 'string' },
      'tsan-iterations': { type: 'string' },
      'sleep-us': { type: 'string' },
      mutant: { type: 'string' },
    },
    strict: true,
  }).values;
}

/** The sections and every number, read before the first section runs: a typo must not cost minutes. */
function readBenchOptions(argv: readonly string[]): BenchOptions {
  const values = parse(argv);
  const seconds = (v: string | undefined, name: string, fallback: number): number =>
    secondsOption('bench', v, name, fallback);
  const count = (v: string | undefined, name: string, fallback: number): number =>
    countOption('bench', v, name, fallback);
  const only = (values.only ?? DEFAULT_SECTIONS.join(',')).split(',');
  for (const s of only) if (!isOneOf(BENCH_SECTIONS, s)) fail(`no section '${s}'; known: ${BENCH_SECTIONS.join(', ')}`);
  const strategies = (values.strategies ?? STRATEGIES.join(',')).split(',');
  for (const s of strategies) if (!isOneOf(STRATEGIES, s)) fail(`no strategy '${s}'; known: ${STRATEGIES.join(', ')}`);
  const outDir = prepareOutputDir('bench', 'out', values.out ?? 'reports');
  return {
    only: only.filter((s) => isOneOf(BENCH_SECTIONS, s)),
    strategies,
    root: process.cwd(),
    outDir,
    backend: values.backend,
    lib: values.lib,
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
    ctier: {
      runs: count(values['ctier-runs'], 'ctier-runs', 3000),
      speedRuns: count(values['speed-runs'], 'speed-runs', 3000),
      perScenario: count(values['per-scenario'], 'per-scenario', 200),
      stressIterations: count(values['stress-iterations'], 'stress-iterations', 1000),
      tsanIterations: count(values['tsan-iterations'], 'tsan-iterations', 300),
      sleepUs: intOption('bench', values['sleep-us'], 'sleep-us', 0, 1_000_000, 50),
      seed: seedOption('bench', values.seed, 20261204),
      ids: values.mutant === undefined ? [] : values.mutant.split(','),
    },
    log: (line: string): void => void process.stderr.write(`${line}\n`),
  };
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = readBenchOptions(argv);
  const report: BenchReport = {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    machine: { cores: cpus().length, node: process.version, loadAverageAtStart: loadavg(), loadAverageAtEnd: [] },
  };
  let unexpected = false;
  // in the table's order, whatever the order of --only
  for (const section of BENCH_SECTIONS) {
    if (o.only.includes(section) && (await runSection(section, o, report))) unexpected = true;
  }
  report.machine.loadAverageAtEnd = loadavg();
  writeBenchReport(o.outDir, report);
  process.stderr.write(`${htmlReportLine(await writeHtmlReport(o.outDir, { onProgress: progressTo('bench') }))}\n`);
  o.log(`report in ${shownPath(`${o.outDir}/bench.md`)}`);
  return unexpected ? 1 : 0;
}
