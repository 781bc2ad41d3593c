/**
 * One Stryker score from several runs' JSON reports: for each file, the newest report
 * (the last named) whose copy of the file is today's source byte for byte, with today's
 * exclusions (exclusions.json, through the same ignorer the runs use) taken out of the
 * count. Why: a full run over the tier or the reference takes one to two hours on two
 * cores; after a change to a few files, re-running those (`--mutate`) and keeping the
 * earlier run's results for the files unchanged since gives the score without the wait.
 *
 * Invariants: a file whose source matches no report is an error (its figures would be
 * stale), never skipped silently; a mutant excluded today counts in no column; the score
 * is (killed + timeout) / (killed + timeout + survived + no coverage), Stryker's own.
 * What a composite promises: a file's figures come from a run over exactly its text;
 * kills in an unchanged file depend on the property suite too, so when the suite only
 * grew since the earlier run (runs added, checks added), its figures are a lower bound.
 *
 *   npx tsx mutants/stryker/compose_scores.ts DIR_OR_FILES... [--under src/tier]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { ignorer } from './exclusions.mjs';
import { QUIET_LOGGER } from './quiet_logger.js';

interface ReportMutant {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}
interface ReportFile {
  readonly source: string;
  readonly mutants: readonly ReportMutant[];
}
interface Report {
  readonly files: Record<string, ReportFile>;
}

/** A mutant's identity within one text of its file. */
function keyOf(line: number, column: number, mutator: string, replacement: string | undefined): string {
  return `${line}:${column}:${mutator}:${replacement ?? ''}`;
}

/** The mutants today's exclusions take out of `file` (its current text). */
async function excludedIn(file: string, content: string): Promise<Set<string>> {
  const result = await new Instrumenter(QUIET_LOGGER).instrument([{ name: resolve(file), content, mutate: true }], {
    plugins: null,
    excludedMutations: [],
    ignorers: [ignorer as never],
  });
  const out = new Set<string>();
  for (const m of result.mutants) {
    if (m.status === 'Ignored')
      out.add(keyOf(m.location.start.line + 1, m.location.start.column + 1, m.mutatorName, m.replacement));
  }
  return out;
}

interface Tally {
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
}

function readReport(path: string): Report {
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: not a Stryker JSON report (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof report !== 'object' || report === null || !('files' in report))
    throw new Error(`${path}: not a Stryker JSON report (no "files")`);
  return report as Report;
}

function score(t: Tally): number {
  const detected = t.killed + t.timeout;
  return (100 * detected) / (detected + t.survived + t.noCoverage);
}

async function main(argv: readonly string[]): Promise<number> {
  const underAt = argv.indexOf('--under');
  const under = underAt >= 0 ? argv[underAt + 1] : undefined;
  const paths = underAt < 0 ? [...argv] : [...argv.slice(0, underAt), ...argv.slice(underAt + 2)];
  if (paths.length === 0 || under === undefined) {
    console.error('usage: compose_scores.ts REPORT.json... --under src/tier (later reports win)');
    return 2;
  }
  const reports = paths.map((p) => ({ path: p, report: readReport(p) }));
  const files = new Set(reports.flatMap((r) => Object.keys(r.report.files)).filter((f) => f.startsWith(`${under}/`)));
  const total: Tally = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  let missing = 0;
  for (const file of [...files].sort()) {
    const content = readFileSync(file, 'utf8');
    const from = [...reports].reverse().find((r) => r.report.files[file]?.source === content);
    if (from === undefined) {
      console.error(`${file}: no report holds today's text of it; re-run Stryker over it (--mutate ${file})`);
      missing++;
      continue;
    }
    const excluded = await excludedIn(file, content);
    const t: Tally = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
    for (const m of from.report.files[file]?.mutants ?? []) {
      if (excluded.has(keyOf(m.location.start.line, m.location.start.column, m.mutatorName, m.replacement))) continue;
      if (m.status === 'Killed') t.killed++;
      else if (m.status === 'Timeout') t.timeout++;
      else if (m.status === 'Survived') t.survived++;
      else if (m.status === 'NoCoverage') t.noCoverage++;
    }
    for (const k of ['killed', 'timeout', 'survived', 'noCoverage'] as const) total[k] += t[k];
    console.log(
      `${file.padEnd(32)} ${score(t).toFixed(2).padStart(6)} %  killed ${t.killed}, timeout ${t.timeout}, ` +
        `survived ${t.survived}, no coverage ${t.noCoverage}  (${from.path})`,
    );
  }
  if (missing > 0) return 1;
  const n = total.killed + total.timeout + total.survived + total.noCoverage;
  console.log(
    `${under}: ${score(total).toFixed(2)} % of ${n} mutants: killed ${total.killed}, timeout ${total.timeout}, ` +
      `survived ${total.survived}, no coverage ${total.noCoverage}`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`compose_scores: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
