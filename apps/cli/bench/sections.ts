/**
 * The sections of `npm run bench` (apps/cli/bench.ts), each a function that measures and
 * fills its part of the report: the simulator's speed with and without the checkers, its
 * scaling, the exhaustive searches, the fill_wait race, the catalogue mutants' time to
 * kill, (on request) the native engine's uploads, and check-trace's throughput on a long
 * free run's log.
 *
 * Invariant: a section returns true when something that ought to pass did not (a
 * violation on the unmutated tier, a failed upload): the bench then exits 1; the other
 * sections still run.
 */
import { describeScenario } from '../../../model/scenario/scenario.js';
import { defaultScenario } from '../../../properties/committed_scenarios.js';
import { NativeEngineLib, NativeError } from '../../../src/engine/native/binding.js';
import { libraryPath, NATIVE_BACKENDS } from '../../../src/engine/native/library_file.js';
import { isOneOf, usageError, wordList } from '../cli_args.js';
import type { BenchReport } from './bench_report.js';
import { measureExhaustive } from './exhaustive_bench.js';
import { measureMutants } from './mutants_bench.js';
import { measureRace, RACE_FILE, RACE_REPLACE } from './race.js';
import { measureFlatness } from './flatness.js';
import { grownScenarios } from './scaling.js';
import { measureSpeed } from './speed.js';
import { growthTarget, speedTargets, warmUpLine } from './speed_report.js';
import { measureCheckTrace } from './trace_bench.js';
import { measureCheckTraceReference } from './trace_reference_bench.js';
import { measureUpload } from './upload.js';
import { measureCTier, type CTierBenchOptions } from './ctier_bench.js';

export const BENCH_SECTIONS = [
  'speed',
  'scaling',
  'exhaustive',
  'race',
  'mutants',
  'upload',
  'ctier',
  'check-trace',
] as const;
export type BenchSection = (typeof BENCH_SECTIONS)[number];
/**
 * what a plain `npm run bench` runs: the upload section needs a native library and a GiB;
 * the C tier's builds every catalogue defect three ways and runs the stress test (minutes)
 */
export const DEFAULT_SECTIONS: readonly BenchSection[] = [
  'speed',
  'scaling',
  'exhaustive',
  'race',
  'mutants',
  'check-trace',
];

/** What the sections are asked: every number read and checked before the first one runs. */
export interface BenchOptions {
  readonly only: readonly BenchSection[];
  readonly strategies: readonly string[];
  /** the repository the race and the mutants are copied from */
  readonly root: string;
  readonly outDir: string;
  readonly backend: string | undefined;
  readonly lib: string | undefined;
  readonly seconds: number;
  readonly repeats: number;
  readonly scalingSeconds: number;
  readonly exploreSeconds: number;
  readonly raceSeeds: number;
  readonly raceRuns: number;
  readonly mutantSeconds: number;
  readonly jobs: number;
  readonly device: number;
  readonly expertsGiB: number;
  readonly expertWidth: number;
  readonly expertHidden: number;
  readonly uploadFills: number;
  readonly uploadTokens: number;
  /** the C tier's section (ctier_bench.ts) */
  readonly ctier: Omit<CTierBenchOptions, 'root' | 'log'>;
  readonly log: (line: string) => void;
}

type Section = (o: BenchOptions, report: BenchReport) => Promise<boolean>;

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('bench', message);
}

async function speed(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const s = defaultScenario();
  const { seconds, repeats } = o;
  o.log(
    `speed: default scenario, ${repeats} x ${seconds} s with every checker on, without the refinement, then off ...`,
  );
  const on = measureSpeed(s, { checks: true, seconds, repeats });
  const noRefinement = measureSpeed(s, { checks: 'no-refinement', seconds, repeats });
  const off = measureSpeed(s, { checks: false, seconds, repeats });
  report.speed = {
    scenario: describeScenario(s),
    on,
    noRefinement,
    off,
    checkerCost: off.stepsPerSecond / Math.max(1, on.stepsPerSecond),
    refinementCost: noRefinement.stepsPerSecond / Math.max(1, on.stepsPerSecond),
  };
  const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
  o.log(
    `  ${fmt(on.stepsPerSecond)} steps/s with every checker (${fmt(on.stepsPerCpuSecond)} per CPU second), ${fmt(noRefinement.stepsPerSecond)} without the refinement, ${fmt(off.stepsPerSecond)} without checkers`,
  );
  o.log(`  ${warmUpLine(report.speed)}`);
  for (const line of speedTargets(report.speed)) o.log(`  ${line.slice(2)}`);
  return on.violations > 0;
}

async function scaling(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const seconds = o.scalingSeconds;
  let unexpected = false;
  report.scaling = [];
  const grown = grownScenarios(defaultScenario());
  for (const g of grown) {
    o.log(`scaling: ${g.dimension} = ${g.value} ...`);
    const on = measureSpeed(g.scenario, { checks: true, seconds, repeats: 1, warmupSeconds: 0.2 });
    const off = measureSpeed(g.scenario, { checks: false, seconds, repeats: 1, warmupSeconds: 0.2 });
    if (on.violations > 0) unexpected = true;
    report.scaling.push({ dimension: g.dimension, value: g.value, on, off });
  }
  const experts = grown.filter((g) => g.dimension === 'experts');
  const fewest = experts[0];
  const most = experts[experts.length - 1];
  if (fewest !== undefined && most !== undefined && fewest !== most) {
    o.log(`scaling: ${fewest.value} and ${most.value} experts in turn ...`);
    report.flatness = measureFlatness(fewest, most, 5, Math.max(0.1, seconds / 3));
  }
  o.log(`  ${growthTarget(report.scaling, report.flatness).slice(2)}`);
  return unexpected;
}

async function exhaustive(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const { section, unexpected } = await measureExhaustive(o.exploreSeconds, o.log);
  report.exhaustive = section;
  return unexpected;
}

async function race(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const seeds = o.raceSeeds;
  const runsPerSuite = o.raceRuns;
  o.log(`race: fill_wait on st.qn, ${seeds} seeds x ${o.strategies.join(', ')} ...`);
  const rows = await measureRace(o.root, o.strategies, seeds, runsPerSuite);
  report.race = { file: RACE_FILE, change: RACE_REPLACE, seeds, runsPerSuite, rows };
  return false;
}

async function mutants(o: BenchOptions, report: BenchReport): Promise<boolean> {
  report.mutants = await measureMutants(o.root, o.strategies, o.mutantSeconds, o.jobs, o.log);
  return false;
}

async function upload(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const backend = o.backend ?? 'cpu';
  if (!isOneOf(NATIVE_BACKENDS, backend)) fail(`--backend must be ${wordList(NATIVE_BACKENDS)}, got '${backend}'`);
  let lib: NativeEngineLib;
  try {
    lib = new NativeEngineLib(o.lib ?? libraryPath(backend));
  } catch (e) {
    return fail(e instanceof NativeError ? e.message : String(e));
  }
  if (lib.backend !== backend) fail(`${lib.path} is the ${lib.backend} engine, not ${backend}`);
  report.upload = await measureUpload({
    lib,
    device: o.device,
    expertGiB: o.expertsGiB,
    width: o.expertWidth,
    hidden: o.expertHidden,
    fills: o.uploadFills,
    tokens: o.uploadTokens,
    log: o.log,
  });
  return report.upload.problems.length > 0;
}

async function ctier(o: BenchOptions, report: BenchReport): Promise<boolean> {
  const { section, unexpected } = await measureCTier({ ...o.ctier, root: o.root, log: o.log });
  report.ctier = section;
  return unexpected;
}

async function checkTraceSection(o: BenchOptions, report: BenchReport): Promise<boolean> {
  o.log("check-trace: a free run's log of the C tier, at two lengths ...");
  const section = measureCheckTrace(o.log, [4, 16]);
  const reference = measureCheckTraceReference(o.log);
  report.checkTrace = { ...section, reference };
  return section.rows.some((r) => !r.whole) || reference.whole < reference.logs;
}

const SECTIONS: Readonly<Record<BenchSection, Section>> = {
  speed,
  scaling,
  exhaustive,
  race,
  mutants,
  upload,
  ctier,
  'check-trace': checkTraceSection,
};

/** Runs one section into the report; whether it found what it ought not to. */
export function runSection(section: BenchSection, o: BenchOptions, report: BenchReport): Promise<boolean> {
  return SECTIONS[section](o, report);
}
