/**
 * `npm run report`: the HTML report, regenerated from the JSON reports present.
 *
 *   npm run report [-- build [DIR] [--jobs N]]      DIR/index.html from DIR's JSON (DIR: reports)
 *   npm run report -- counterexample FILE OUT.html  the lane diagram page of one counterexample
 *   npm run report -- merge DIR... [--out DIR]      joins the shard reports of one run
 *
 * build and counterexample exit 0 when the page was written from every input, 1 when it
 * was written but some input could not be read or replayed (each printed, and listed on
 * the page), 2 on bad arguments or an unwritable file. merge (report_merge.ts) writes the
 * whole run's report to --out (default: reports) and exits as the whole run would have
 * (0 held, 1 or 3 violated, 4 incomplete), or 2 for shards that do not join.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExitCode } from '../../src/check/exit_codes.js';
import { environmentErrorOf } from '../../src/input/environment_error.js';
import { htmlReportLine, writeCounterexampleHtml, writeHtmlReport } from '../report/write_report.js';
import { shownPath } from './output_dir.js';
import { isOneOf, parseOrFail, sharedOptions, usageError } from './cli_args.js';

const USAGE =
  'usage: npm run report [-- build [DIR] [--jobs N]] | npm run report -- counterexample FILE OUT.html | npm run report -- merge DIR... [--out DIR]';
const SUBCOMMANDS = ['build', 'counterexample', 'merge'] as const;

function fail(message: string): never {
  return usageError('report', message);
}

/** The options every subcommand is given (each refuses the ones that are not its own). */
interface ReportOptions {
  readonly jobs?: string | undefined;
  readonly out?: string | undefined;
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const { values, positionals } = parseOrFail('report', argv, {
    options: { ...sharedOptions('jobs', 'out'), help: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [first, ...rest] = positionals;
  const sub = first ?? 'build';
  if (!isOneOf(SUBCOMMANDS, sub)) fail(`no subcommand '${first ?? ''}'; known: ${SUBCOMMANDS.join(', ')}\n${USAGE}`);
  if (values.out !== undefined && sub !== 'merge') fail('--out is an option of merge');
  try {
    return sub === 'build'
      ? await build(rest, values)
      : sub === 'merge'
        ? await merge(rest, values)
        : await counterexample(rest, values);
  } catch (e) {
    // a full disk is the machine's failure (exit 74), not bad arguments
    if (environmentErrorOf(e) !== null) throw e;
    return fail((e as Error).message);
  }
}

async function build(args: readonly string[], values: ReportOptions): Promise<ExitCode> {
  if (args.length > 1) fail(`build takes one directory, got ${args.length}\n${USAGE}`);
  const dir = resolve(args[0] ?? 'reports');
  if (!existsSync(dir)) fail(`no directory ${dir}`);
  let jobs: number | undefined;
  if (values.jobs !== undefined) {
    jobs = Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs wants a positive integer, got '${values.jobs}'`);
  }
  // the whole page: kills without a stored lane diagram are replayed on their mutants, saying so
  const onProgress = (line: string): void => void process.stderr.write(`report: ${line}\n`);
  const r = await writeHtmlReport(dir, { ...(jobs !== undefined ? { jobs } : {}), replayMutants: true, onProgress });
  process.stdout.write(`${htmlReportLine(r)}\n`);
  return r.problems.length === 0 ? 0 : 1;
}

async function counterexample(args: readonly string[], values: ReportOptions): Promise<ExitCode> {
  const [file, out] = args;
  if (file === undefined || out === undefined || args.length > 2)
    fail(`counterexample wants FILE and OUT.html\n${USAGE}`);
  if (values.jobs !== undefined) fail('--jobs is an option of build');
  const bytes = await writeCounterexampleHtml(file, out, (line) => process.stderr.write(`report: ${line}\n`));
  process.stdout.write(`lane diagram of ${shownPath(file)} in ${shownPath(out)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
  return 0;
}

async function merge(args: readonly string[], values: ReportOptions): Promise<ExitCode> {
  if (args.length === 0) fail(`merge wants the shard directories\n${USAGE}`);
  if (values.jobs !== undefined) fail('--jobs is an option of build');
  // loaded only here: merging mutants needs mutants/lib, which a scratch copy has not
  const { mergeShardReports } = await import('./report_merge.js');
  return mergeShardReports(
    args.map((a) => resolve(a)),
    resolve(values.out ?? 'reports'),
    (line) => process.stdout.write(`${line}\n`),
  );
}
