/**
 * Loads everything the HTML report draws from one report directory: properties.json,
 * mutants.json, every oracle-<backend>.json, bench.json, stryker/mutation.json, and the
 * counterexample files the properties and mutants reports name, each replayed for its
 * trace (on the unmutated sources here, or in a scratch copy with its mutant applied).
 *
 * A process that runs a mutant's sources (TIERLAB_MUTANT names it: the properties CLI
 * inside a mutation run) replays that mutant's counterexamples in-process.
 *
 * Invariant: a missing report is simply absent; a report or counterexample that cannot be
 * read, checked or replayed becomes one line in `problems` (shown on the page), and the
 * rest is still loaded.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { mutantOf, propertyStatements, replayToView } from './counterexample_replay.js';
import { checkEach, checkShape, readJson, ReportInputError } from './json_shape.js';
import type { MutantReplayRequest } from './mutant_replay.js';
import { replayFile } from './properties_section.js';
import type { BenchInput, CounterexampleView, MutantsInput, OracleInput, PropertiesInput, ReportInputs, StrykerInput } from './report_inputs.js';
import { strykerScore } from './stryker_score.js';

export interface LoadOptions {
  /** mutant replays at a time (child processes); default: the machine's cores */
  readonly jobs?: number;
}

function properties(data: unknown, file: string): PropertiesInput {
  checkShape(data, { date: 'string', seed: 'number', strategy: 'string', command: 'string', ok: 'boolean', totals: 'object', properties: 'array', suites: 'array', coverage: 'array' }, file);
  const p = data as PropertiesInput;
  checkShape(p.totals, { runs: 'number', steps: 'number', seconds: 'number', stepsPerSecond: 'number', runsPerSecond: 'number' }, file, 'totals');
  checkEach(p.properties, { id: 'string', family: 'string', statement: 'string', violations: 'number', status: 'string' }, file, 'properties');
  checkEach(p.suites, { suite: 'string', strategy: 'string', runs: 'number', steps: 'number', seconds: 'number', violations: 'object', failure: 'object?', guarantee: 'object?' }, file, 'suites');
  p.suites.forEach((s, i) => {
    if (s.failure !== null) checkShape(s.failure, { property: 'string', detail: 'string', choices: 'array', replay: 'string' }, file, `suites[${i}].failure`);
  });
  checkEach(p.coverage, { mark: 'string', runs: 'number', percent: 'number' }, file, 'coverage');
  return p;
}

const STATUSES = new Set(['killed', 'survived', 'stillborn', 'equivalent', 'inconclusive']);

function mutants(data: unknown, file: string): MutantsInput {
  checkShape(data, { date: 'string', command: 'string', settings: 'object', sources: 'object', wallSeconds: 'number', results: 'array' }, file);
  const m = data as MutantsInput;
  checkShape(m.sources, { commit: 'string', changed: 'array' }, file, 'sources');
  checkEach(
    m.results,
    {
      id: 'string',
      kind: 'string',
      source: 'string',
      title: 'string',
      status: 'string',
      property: 'string?',
      detail: 'string?',
      suite: 'string?',
      runsToKill: 'number?',
      secondsToKill: 'number?',
      steps: 'number?',
      choices: 'number?',
      counterexample: 'string?',
      replay: 'string?',
      matrix: 'object?',
      matrixRuns: 'number',
      runs: 'number?',
      error: 'string?',
      equivalentReason: 'string?',
    },
    file,
    'results',
  );
  m.results.forEach((r, i) => {
    if (!STATUSES.has(r.status)) throw new ReportInputError(`${file}: results[${i}].status '${r.status}' is not one of ${[...STATUSES].join(', ')}`);
  });
  return m;
}

function oracle(data: unknown, file: string): OracleInput {
  checkShape(data, { date: 'string', backend: 'string', devices: 'array', fixture: 'string', library: 'string', tokens: 'number', ok: 'boolean', validationMessages: 'number?', runs: 'array', rawCopyGBps: 'number?' }, file);
  const o = data as OracleInput;
  checkEach(
    o.runs,
    { name: 'string', pass: 'boolean', tokensMatched: 'number', tokens: 'number', firstDivergence: 'number', hiddenBitIdentical: 'boolean', residentAtEnd: 'number', hitRate: 'number', uploads: 'number', uploadFailures: 'number', swaps: 'number', uploadGBps: 'number', tokPerSec: 'number', problem: 'string?', notes: 'array', residencyByToken: 'array?' },
    file,
    'runs',
  );
  return o;
}

function bench(data: unknown, file: string): BenchInput {
  checkShape(data, { date: 'string', command: 'string', machine: 'object', speed: 'object?', scaling: 'array?', exhaustive: 'object?', race: 'object?', mutants: 'object?' }, file);
  const b = data as BenchInput;
  checkShape(b.machine, { cores: 'number', node: 'string', loadAverageAtStart: 'array', loadAverageAtEnd: 'array' }, file, 'machine');
  const speed = { checks: 'boolean', stepsPerSecond: 'number', stepsPerCpuSecond: 'number', schedulesPerSecond: 'number', stepsPerSchedule: 'number', samples: 'array' } as const;
  if (b.speed !== undefined) {
    checkShape(b.speed, { scenario: 'string', on: 'object', off: 'object', checkerCost: 'number' }, file, 'speed');
    checkShape(b.speed.on, speed, file, 'speed.on');
    checkShape(b.speed.off, speed, file, 'speed.off');
  }
  if (b.scaling !== undefined) {
    checkEach(b.scaling, { dimension: 'string', value: 'number', on: 'object', off: 'object' }, file, 'scaling');
    b.scaling.forEach((r, i) => {
      checkShape(r.on, speed, file, `scaling[${i}].on`);
      checkShape(r.off, speed, file, `scaling[${i}].off`);
    });
  }
  if (b.exhaustive !== undefined) {
    checkShape(b.exhaustive, { scenario: 'string', rows: 'array', reductionFactor: 'number?' }, file, 'exhaustive');
    checkEach(b.exhaustive.rows, { label: 'string', preemptions: 'number?', reduction: 'boolean', stateCache: 'boolean', complete: 'boolean', schedules: 'number', states: 'number?', seconds: 'number', violations: 'array' }, file, 'exhaustive.rows');
  }
  if (b.race !== undefined) {
    checkShape(b.race, { file: 'string', change: 'string', seeds: 'number', runsPerSuite: 'number', rows: 'array' }, file, 'race');
    checkEach(b.race.rows, { strategy: 'string', seeds: 'number', found: 'number', medianRuns: 'number?', medianSeconds: 'number?', worstRuns: 'number?', worstSeconds: 'number?' }, file, 'race.rows');
  }
  if (b.mutants !== undefined) {
    checkShape(b.mutants, { available: 'boolean', note: 'string', secondsPerMutant: 'number', jobs: 'number', strategies: 'array', rows: 'array', wallSeconds: 'object' }, file, 'mutants');
    checkEach(b.mutants.rows, { id: 'string', byStrategy: 'object', firstKiller: 'string?' }, file, 'mutants.rows');
  }
  return b;
}

/** One report file: absent is null, unreadable or malformed is a problem. */
function load<T>(dir: string, name: string, check: (data: unknown, file: string) => T, problems: string[]): T | null {
  const file = join(dir, name);
  if (!existsSync(file)) return null;
  try {
    return check(readJson(file), file);
  } catch (e) {
    problems.push(e instanceof ReportInputError ? e.message : `${file}: ${(e as Error).message}`);
    return null;
  }
}

/**
 * Where a counterexample a report names is on disk: a command copies it into DIR/SUB/
 * (counterexamples/, mutants/) and names it relative to the repository, so look there
 * first, then relative to the working directory and to the report directory's parent.
 */
function locate(dir: string, sub: string, named: string): string | null {
  const candidates = [isAbsolute(named) ? named : null, join(dir, sub, basename(named)), resolve(named), resolve(dirname(resolve(dir)), named)];
  return candidates.find((c): c is string => c !== null && existsSync(c)) ?? null;
}

interface Wanted {
  readonly named: string;
  readonly sub: string;
  readonly replay: string;
  readonly by: string;
}

async function replayAll(dir: string, wanted: readonly Wanted[], jobs: number | undefined, problems: string[]): Promise<Map<string, CounterexampleView>> {
  const views = new Map<string, CounterexampleView>();
  const onMutants: MutantReplayRequest[] = [];
  for (const w of wanted) {
    if (views.has(w.named) || onMutants.some((r) => r.shownAs === w.named)) continue;
    const path = locate(dir, w.sub, w.named);
    if (path === null) {
      problems.push(`${w.named} (named by ${w.by}): counterexample file not found`);
      continue;
    }
    try {
      const mutant = mutantOf(path);
      // in-process when the sources this process runs are the ones it was found on
      if (mutant === null || mutant === process.env['TIERLAB_MUTANT']) views.set(w.named, replayToView(path, w.named, w.replay));
      // the properties CLI run inside a mutant's scratch copy names the plain replay, which would replay clean
      else onMutants.push({ path, shownAs: w.named, mutant, replay: w.replay.startsWith('npm run replay -- ') ? `npm run mutants -- --replay ${w.named}` : w.replay });
    } catch (e) {
      problems.push(`${w.named}: ${(e as Error).message}`);
    }
  }
  if (onMutants.length === 0) return views;
  // loaded only when needed: a mutant's scratch copy (where the properties and replay CLIs
  // also run) holds no mutants/lib, and its own counterexamples replay in-process above
  const { replayOnMutants } = await import('./mutant_replay.js');
  const answers = await replayOnMutants(onMutants, jobs);
  answers.forEach((a, i) => {
    const req = onMutants[i];
    if ('view' in a && req !== undefined) views.set(req.shownAs, a.view);
    else if ('problem' in a) problems.push(a.problem);
  });
  return views;
}

export async function loadReportInputs(dir: string, opts: LoadOptions = {}): Promise<ReportInputs> {
  const problems: string[] = [];
  const props = load(dir, 'properties.json', properties, problems);
  const muts = load(dir, 'mutants.json', mutants, problems);
  const oracleFiles = existsSync(dir) ? readdirSync(dir).filter((f) => /^oracle-[A-Za-z0-9_-]+\.json$/.test(f)).sort() : [];
  const oracles = oracleFiles.map((f) => load(dir, f, oracle, problems)).filter((o): o is OracleInput => o !== null);
  const benchReport = load(dir, 'bench.json', bench, problems);
  const stryker: StrykerInput | null = load(dir, join('stryker', 'mutation.json'), strykerScore, problems);

  const wanted: Wanted[] = [];
  for (const s of props?.suites ?? []) {
    const named = s.failure !== null ? replayFile(s.failure.replay) : null;
    if (s.failure !== null && named !== null) wanted.push({ named, sub: 'counterexamples', replay: s.failure.replay, by: 'properties.json' });
  }
  for (const r of muts?.results ?? []) {
    if (r.status === 'killed' && r.counterexample !== null) wanted.push({ named: r.counterexample, sub: 'mutants', replay: r.replay ?? `npm run mutants -- --replay ${r.counterexample}`, by: 'mutants.json' });
  }
  const counterexamples = await replayAll(dir, wanted, opts.jobs, problems);
  return { dir, properties: props, mutants: muts, oracles, bench: benchReport, stryker, counterexamples, statements: propertyStatements(), problems };
}
