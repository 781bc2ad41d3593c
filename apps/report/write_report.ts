/**
 * The HTML report's entry points, for the CLIs:
 *  - `writeHtmlReport(dir)`: reads every JSON report in `dir` (and the counterexamples
 *    they name: replayed here, or a kill's view stored when it was found) and writes
 *    `dir/index.html`. Quick (no mutant is replayed) unless `replayMutants` asks for the
 *    kills with no stored view, which `npm run report` does, saying so as it goes;
 *  - `writeCounterexampleHtml(file, out)`: the lane diagram page of one counterexample,
 *    a mutant's kill drawn from its mutant's run (its stored view, or replayed on it);
 *  - `renderReportHtml(inputs)`: the page from loaded inputs (plain data), for tests.
 * Writing is the only thing here that can fail hard (a directory that cannot be written);
 * everything else that goes wrong is listed on the page and in the result.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeReportFile } from '../../src/input/report_file.js';
import { renderBenchSection } from './bench_section.js';
import { anchorId } from './html.js';
import { renderCounterexampleHtml } from './counterexample_page.js';
import { mutantOf, readStoredView, replayCommand, replayToView } from './counterexample_replay.js';
import { shownPath } from './shown_path.js';
import { loadReportInputs, type LoadOptions } from './load_reports.js';
import { renderMutantsSection, strykerBlock } from './mutants_section.js';
import { renderOracleSection } from './oracle_section.js';
import { renderPage, type PageSection } from './page.js';
import { renderPropertiesSection } from './properties_section.js';
import type { CounterexampleView, ReportInputs } from './report_inputs.js';

export interface HtmlReportResult {
  readonly file: string;
  readonly bytes: number;
  /** wall seconds to load, replay and draw */
  readonly seconds: number;
  /** the reports found (properties, mutants, oracle-cpu, bench, stryker) */
  readonly found: readonly string[];
  readonly problems: readonly string[];
}

export function renderReportHtml(inputs: ReportInputs): string {
  const sections: PageSection[] = [];
  if (inputs.properties !== null)
    sections.push({
      id: 'properties',
      heading: 'Properties',
      html: renderPropertiesSection(inputs.properties, inputs.counterexamples),
    });
  for (const r of inputs.scenarioRuns)
    sections.push({
      id: anchorId('properties', r.name),
      heading: `Search of ${r.name}`,
      html: renderPropertiesSection(r.report, inputs.counterexamples),
    });
  if (inputs.mutants !== null) {
    sections.push({
      id: 'mutants',
      heading: 'Mutants',
      html: renderMutantsSection(inputs.mutants, {
        statements: inputs.statements,
        views: inputs.counterexamples,
        stryker: inputs.stryker,
      }),
    });
  } else if (inputs.stryker !== null) {
    sections.push({ id: 'mutants', heading: 'Mutants', html: strykerBlock(inputs.stryker) });
  }
  if (inputs.oracles.length > 0)
    sections.push({ id: 'oracle', heading: 'Oracle runs', html: renderOracleSection(inputs.oracles) });
  if (inputs.bench !== null || inputs.oracles.length > 0)
    sections.push({ id: 'bench', heading: 'Bench', html: renderBenchSection(inputs.bench, inputs.oracles) });
  const absent = [
    inputs.properties === null ? 'properties.json' : null,
    inputs.mutants === null ? 'mutants.json' : null,
    inputs.oracles.length === 0 ? 'oracle-*.json' : null,
    inputs.bench === null ? 'bench.json' : null,
  ].filter((x): x is string => x !== null);
  return renderPage({
    title: 'tierlab report',
    subtitle: `${new Date().toISOString()} · from ${shownPath(inputs.dir)}${absent.length > 0 ? ` · not here: ${absent.join(', ')}` : ''}`,
    sections,
    problems: inputs.problems,
  });
}

function found(inputs: ReportInputs): string[] {
  return [
    ...(inputs.properties !== null ? ['properties'] : []),
    ...inputs.scenarioRuns.map((r) => `properties-${r.name}`),
    ...(inputs.mutants !== null ? ['mutants'] : []),
    ...inputs.oracles.map((o) => `oracle-${o.backend}${o.tier === 'c' ? '-ctier' : ''}`),
    ...(inputs.bench !== null ? ['bench'] : []),
    ...(inputs.stryker !== null ? ['stryker'] : []),
  ];
}

function write(file: string, html: string): number {
  // the directory must exist: a typo in a path should not create a tree of folders
  if (!existsSync(dirname(file))) throw new Error(`cannot write ${file}: no directory ${dirname(file)}`);
  // whole or not at all; a full disk is an EnvironmentError naming the folder (exit 74)
  writeReportFile(file, html);
  return Buffer.byteLength(html);
}

/** From this many counterexamples on, drawing the page is announced (it takes seconds). */
const MANY_DIAGRAMS = 40;

/** A progress callback that prints `tool: line` on stderr, for the commands. */
export function progressTo(tool: string): (line: string) => void {
  return (line) => void process.stderr.write(`${tool}: ${line}\n`);
}

/** Reads the JSON reports in `reportDir` and writes `reportDir/index.html`. */
export async function writeHtmlReport(reportDir: string, opts: LoadOptions = {}): Promise<HtmlReportResult> {
  const started = performance.now();
  const inputs = await loadReportInputs(reportDir, opts);
  // drawing takes about a twentieth of a second a counterexample: say so when it adds up
  if (inputs.counterexamples.size >= MANY_DIAGRAMS)
    opts.onProgress?.(
      `drawing ${inputs.counterexamples.size} lane diagrams into ${shownPath(join(reportDir, 'index.html'))} ...`,
    );
  const file = join(reportDir, 'index.html');
  const reports = found(inputs);
  const problems =
    reports.length === 0 && inputs.problems.length === 0 ? [`no JSON report in ${reportDir}`] : inputs.problems;
  const bytes = write(file, renderReportHtml({ ...inputs, problems }));
  return { file, bytes, seconds: (performance.now() - started) / 1000, found: reports, problems };
}

/** One line for a CLI to print after writing the report. */
export function htmlReportLine(r: HtmlReportResult): string {
  const size = `${(r.bytes / 1024).toFixed(0)} KiB`;
  const problems =
    r.problems.length === 0
      ? ''
      : `; ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}: ${r.problems.join('; ')}`;
  return `html report in ${shownPath(r.file)} (${size}, ${r.found.join(', ') || 'nothing'}, ${r.seconds.toFixed(1)} s${problems})`;
}

/**
 * The lane diagram page of one counterexample. A counterexample found on a mutant is drawn
 * from its mutant's run: the view stored beside it when the kill was found, else replayed
 * on the mutant in a scratch copy (seconds; `onProgress` hears of it). Returns the bytes
 * written; throws, saying why, when no view can be made.
 */
export async function writeCounterexampleHtml(
  counterexample: string,
  out: string,
  onProgress: (line: string) => void = () => {},
): Promise<number> {
  return write(out, renderCounterexampleHtml(await counterexampleView(counterexample, onProgress)));
}

async function counterexampleView(file: string, onProgress: (line: string) => void): Promise<CounterexampleView> {
  const mutant = mutantOf(file);
  if (mutant === null || mutant === process.env['TIERLAB_MUTANT']) return replayToView(file);
  const replay = replayCommand(file, mutant);
  const stored = readStoredView(file, file, replay);
  if (stored !== null) return stored;
  // loaded only here: a mutant's scratch copy holds no mutants/lib
  const { replayOnMutants } = await import('./mutant_replay.js');
  const [answer] = await replayOnMutants([{ path: file, shownAs: file, mutant, replay }], 1, onProgress);
  if (answer !== undefined && 'view' in answer) return answer.view;
  throw new Error(answer !== undefined && 'problem' in answer ? answer.problem : `${file}: not replayed`);
}
