/**
 * The HTML report's entry points, for the CLIs:
 *  - `writeHtmlReport(dir)`: reads every JSON report in `dir` (and the counterexamples
 *    they name, replayed for their traces) and writes `dir/index.html`;
 *  - `writeCounterexampleHtml(file, out)`: the lane diagram page of one counterexample;
 *  - `renderReportHtml(inputs)`: the page from loaded inputs (plain data), for tests.
 * Writing is the only thing here that can fail hard (a directory that cannot be written);
 * everything else that goes wrong is listed on the page and in the result.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeReportFile } from '../../src/input/report_file.js';
import { renderBenchSection } from './bench_section.js';
import { renderCounterexampleHtml } from './counterexample_page.js';
import { replayToView } from './counterexample_replay.js';
import { loadReportInputs, type LoadOptions } from './load_reports.js';
import { renderMutantsSection, strykerBlock } from './mutants_section.js';
import { renderOracleSection } from './oracle_section.js';
import { renderPage, type PageSection } from './page.js';
import { renderPropertiesSection } from './properties_section.js';
import type { ReportInputs } from './report_inputs.js';

export interface HtmlReportResult {
  readonly file: string;
  readonly bytes: number;
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
    subtitle: `${new Date().toISOString()} · from ${inputs.dir}${absent.length > 0 ? ` · not here: ${absent.join(', ')}` : ''}`,
    sections,
    problems: inputs.problems,
  });
}

function found(inputs: ReportInputs): string[] {
  return [
    ...(inputs.properties !== null ? ['properties'] : []),
    ...(inputs.mutants !== null ? ['mutants'] : []),
    ...inputs.oracles.map((o) => `oracle-${o.backend}`),
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

/** Reads the JSON reports in `reportDir` and writes `reportDir/index.html`. */
export async function writeHtmlReport(reportDir: string, opts: LoadOptions = {}): Promise<HtmlReportResult> {
  const inputs = await loadReportInputs(reportDir, opts);
  const file = join(reportDir, 'index.html');
  const reports = found(inputs);
  const problems =
    reports.length === 0 && inputs.problems.length === 0 ? [`no JSON report in ${reportDir}`] : inputs.problems;
  const bytes = write(file, renderReportHtml({ ...inputs, problems }));
  return { file, bytes, found: reports, problems };
}

/** One line for a CLI to print after writing the report. */
export function htmlReportLine(r: HtmlReportResult): string {
  const size = `${(r.bytes / 1024).toFixed(0)} KiB`;
  const problems =
    r.problems.length === 0
      ? ''
      : `; ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}: ${r.problems.join('; ')}`;
  return `html report in ${r.file} (${size}, ${r.found.join(', ') || 'nothing'}${problems})`;
}

/**
 * The lane diagram page of one counterexample, replayed on the sources this process runs
 * (a mutant's counterexample needs them mutated: run it inside the mutant's scratch copy).
 * Returns the bytes written.
 */
export function writeCounterexampleHtml(counterexample: string, out: string): number {
  return write(out, renderCounterexampleHtml(replayToView(counterexample)));
}
