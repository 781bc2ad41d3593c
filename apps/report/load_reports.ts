/**
 * Loads everything the HTML report draws from one report directory: properties.json and
 * the one-scenario searches' properties-<name>.json, mutants.json, every oracle-<backend>.json, bench.json, stryker/mutation.json, and the
 * counterexample files the properties and mutants reports name, each with its trace: on
 * the unmutated sources replayed here (milliseconds); a mutant's kill read from the view
 * the mutation run stored beside it when it found the kill. A kill with no stored view
 * (a report written before views were stored) is replayed in a scratch copy with its
 * mutant applied only when asked (`replayMutants`: `npm run report`), each announced
 * through `onProgress`; otherwise it is listed as not drawn, with the command that draws it.
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
import { mutantOf, propertyStatements, readStoredView, replayToView } from './counterexample_replay.js';
import { readJson, ReportInputError } from './json_shape.js';
import { benchReport, mutantsReport, oracleReport, propertiesReport } from './report_checks.js';
import type { MutantReplayRequest } from './mutant_replay.js';
import { replayFile } from './properties_section.js';
import type { CounterexampleView, OracleInput, ReportInputs, StrykerInput } from './report_inputs.js';
import { strykerScore } from './stryker_score.js';

export interface LoadOptions {
  /** mutant replays at a time (child processes); default: the machine's cores */
  readonly jobs?: number;
  /** replay the kills that have no stored view, each on its mutant (seconds each) */
  readonly replayMutants?: boolean;
  /** one line per step that takes long (mutant replays) */
  readonly onProgress?: (line: string) => void;
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
  const candidates = [
    isAbsolute(named) ? named : null,
    join(dir, sub, basename(named)),
    resolve(named),
    resolve(dirname(resolve(dir)), named),
  ];
  return candidates.find((c): c is string => c !== null && existsSync(c)) ?? null;
}

interface Wanted {
  readonly named: string;
  readonly sub: string;
  readonly replay: string;
  readonly by: string;
}

/** The view of one counterexample on the unmutated sources, or a mutant's stored one. */
function viewHere(path: string, w: Wanted, mutant: string | null): CounterexampleView | null {
  // in-process when the sources this process runs are the ones it was found on
  if (mutant === null || mutant === process.env['TIERLAB_MUTANT']) return replayToView(path, w.named, w.replay);
  return readStoredView(path, w.named, mutantReplay(w));
}

/** the properties CLI run inside a mutant's scratch copy names the plain replay, which would replay clean */
function mutantReplay(w: Wanted): string {
  return w.replay.startsWith('npm run replay -- ') ? `npm run mutants -- --replay ${w.named}` : w.replay;
}

async function replayAll(
  dir: string,
  wanted: readonly Wanted[],
  opts: LoadOptions,
  problems: string[],
): Promise<Map<string, CounterexampleView>> {
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
      const view = viewHere(path, w, mutant);
      if (view !== null) views.set(w.named, view);
      else if (mutant !== null) onMutants.push({ path, shownAs: w.named, mutant, replay: mutantReplay(w) });
    } catch (e) {
      problems.push(`${w.named}: ${(e as Error).message}`);
    }
  }
  if (onMutants.length === 0) return views;
  if (opts.replayMutants !== true) {
    problems.push(
      `${onMutants.length} kill${onMutants.length === 1 ? ' has' : 's have'} no stored lane diagram ` +
        `(${onMutants.map((r) => r.shownAs).join(', ')}): \`npm run report\` replays ${onMutants.length === 1 ? 'it' : 'them'} on ${onMutants.length === 1 ? 'its mutant' : 'their mutants'}`,
    );
    return views;
  }
  // loaded only when needed: a mutant's scratch copy (where the properties and replay CLIs
  // also run) holds no mutants/lib, and its own counterexamples replay in-process above
  const { replayOnMutants } = await import('./mutant_replay.js');
  const answers = await replayOnMutants(onMutants, opts.jobs, opts.onProgress);
  answers.forEach((a, i) => {
    const req = onMutants[i];
    if ('view' in a && req !== undefined) views.set(req.shownAs, a.view);
    else if ('problem' in a) problems.push(a.problem);
  });
  return views;
}

export async function loadReportInputs(dir: string, opts: LoadOptions = {}): Promise<ReportInputs> {
  const problems: string[] = [];
  const props = load(dir, 'properties.json', propertiesReport, problems);
  const files = existsSync(dir) ? readdirSync(dir).sort() : [];
  // a search of one scenario names its report after the scenario (properties-<name>.json)
  const scenarioRuns = files
    .filter((f) => /^properties-.+\.json$/.test(f))
    .flatMap((f) => {
      const report = load(dir, f, propertiesReport, problems);
      return report === null ? [] : [{ name: f.replace(/^properties-/, '').replace(/\.json$/, ''), report }];
    });
  const muts = load(dir, 'mutants.json', mutantsReport, problems);
  // one per backend and tier (oracle-cpu.json, oracle-cpu-ctier.json, ...); oracle-mutants.json is a kill table
  const oracleFiles = files.filter((f) => /^oracle-(cpu|cuda|vulkan)(-ctier)?\.json$/.test(f));
  const oracles = oracleFiles
    .map((f) => load(dir, f, oracleReport, problems))
    .filter((o): o is OracleInput => o !== null);
  const bench = load(dir, 'bench.json', benchReport, problems);
  const stryker: StrykerInput | null = load(dir, join('stryker', 'mutation.json'), strykerScore, problems);

  const wanted: Wanted[] = [];
  const runs = [
    ...(props !== null ? [{ by: 'properties.json', report: props }] : []),
    ...scenarioRuns.map((r) => ({ by: `properties-${r.name}.json`, report: r.report })),
  ];
  for (const { by, report } of runs)
    for (const s of report.suites) {
      const named = s.failure !== null ? replayFile(s.failure.replay) : null;
      if (s.failure !== null && named !== null)
        wanted.push({ named, sub: 'counterexamples', replay: s.failure.replay, by });
    }
  for (const r of muts?.results ?? []) {
    if (r.status === 'killed' && r.counterexample !== null)
      wanted.push({
        named: r.counterexample,
        sub: 'mutants',
        replay: r.replay ?? `npm run mutants -- --replay ${r.counterexample}`,
        by: 'mutants.json',
      });
  }
  const counterexamples = await replayAll(dir, wanted, opts, problems);
  return {
    dir,
    properties: props,
    scenarioRuns,
    mutants: muts,
    oracles,
    bench,
    stryker,
    counterexamples,
    statements: propertyStatements(),
    problems,
  };
}
