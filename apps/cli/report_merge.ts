/**
 * `npm run report -- merge DIR...`: joins the shard reports of one run (each DIR holds the
 * shard.json a `--shard i/n` run wrote) into the report the whole run would have written:
 * properties.{json,md} or mutants.{json,md} in the output directory, then its HTML page.
 *
 * Properties: per suite, the units of runs are joined in unit order and the parts of an
 * exhaustive search are joined into the whole search (its guarantee holds only when every
 * part is there, which checkShardSet ensures). Mutants: the results, in the run's order.
 *
 * Invariant: the exit status is the whole run's (0, 1, 3); shards that do not form one
 * whole run are refused before anything is written (an Error, reported as bad input).
 */
import { join } from 'node:path';
import { buildMutantsReport, writeMutantsReport } from '../../mutants/lib/report.js';
import type { MutantResult } from '../../mutants/lib/result.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { joinUnits, type UnitResult } from '../../properties/parallel_runs.js';
import { buildReport, writeReport } from '../../properties/report.js';
import { joinSearchParts, type SearchPart } from '../../properties/search_parts.js';
import type { SuiteResult } from '../../properties/types.js';
import { isPropertyId, type PropertyId } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations, type ExitCode } from '../../src/check/exit_codes.js';
import { checkShardSet, readShardFile, type MutantsShard, type PropertiesShard } from '../report/shard_file.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { shownPath } from '../report/shown_path.js';

export async function mergeShardReports(
  dirs: readonly string[],
  out: string,
  log: (line: string) => void,
): Promise<ExitCode> {
  const shards = dirs.map((d) => readShardFile(d));
  checkShardSet(dirs, shards);
  const command = `npm run report -- merge ${dirs.join(' ')}`;
  const code =
    shards[0]?.tool === 'mutants'
      ? mergeMutants(shards as MutantsShard[], out, command, log)
      : mergeProperties(shards as PropertiesShard[], out, command, log);
  log(htmlReportLine(await writeHtmlReport(out, { onProgress: progressTo('report') })));
  return code;
}

function mergeProperties(
  shards: readonly PropertiesShard[],
  out: string,
  command: string,
  log: (line: string) => void,
): ExitCode {
  const first = shards[0];
  if (first === undefined) throw new Error('no shards');
  const results: SuiteResult[] = [];
  const replays = new Map<SuiteResult, string>();
  first.labels.forEach((head, i) => {
    const all = shards.map((s) => s.labels[i]);
    let result: SuiteResult;
    if ('parts' in head) {
      const parts: SearchPart[] = all.flatMap((l) => (l !== undefined && 'parts' in l ? l.parts : []));
      result = joinSearchParts(head.request, parts);
    } else {
      const units: UnitResult[] = all.flatMap((l) => (l !== undefined && 'units' in l ? l.units : []));
      result = joinUnits(head.request, units);
    }
    results.push(result);
    log(
      `${head.label}: ${result.runs} runs, ${result.failure === null ? (Object.keys(result.violations).length > 0 ? 'VIOLATIONS' : 'ok') : `FAIL ${result.failure.property}`}`,
    );
    if (result.guarantee !== undefined) log(`  ${result.guarantee.statement}`);
    const f = result.failure;
    if (f !== null) {
      const file = saveCounterexample(join(out, 'counterexamples'), {
        property: f.property,
        detail: f.detail,
        mutant: null,
        scenario: f.scenario,
        choices: f.choices,
      });
      replays.set(result, `npm run replay -- ${file}`);
    }
  });
  const report = buildReport(results, { seed: first.seed, strategy: first.strategy, command, replays });
  writeReport(out, report, results);
  log(
    `${!report.ok ? 'FAIL' : report.complete ? 'PASS' : 'INCOMPLETE'}: ${shards.length} shards joined, ${report.totals.runs} runs; report in ${shownPath(join(out, 'properties.md'))}`,
  );
  const violated = new Set<PropertyId>();
  for (const r of results) {
    for (const id of Object.keys(r.violations)) if (isPropertyId(id)) violated.add(id);
    if (r.failure !== null) violated.add(r.failure.property);
  }
  if (!report.ok || violated.size > 0) return exitForViolations(violated) || EXIT.safety;
  return report.complete ? EXIT.ok : EXIT.incomplete;
}

function mergeMutants(
  shards: readonly MutantsShard[],
  out: string,
  command: string,
  log: (line: string) => void,
): ExitCode {
  const first = shards[0];
  if (first === undefined) throw new Error('no shards');
  const order = new Map(first.mutants.map((id, i) => [id, i]));
  const results: MutantResult[] = shards
    .flatMap((s) => s.results)
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  const wallSeconds = Math.max(...shards.map((s) => s.meta.wallSeconds));
  const progress = {
    planned: shards.reduce((n, s) => n + s.meta.progress.planned, 0),
    finished: shards.reduce((n, s) => n + s.meta.progress.finished, 0),
    complete: shards.every((s) => s.meta.progress.complete),
    interrupted: shards.find((s) => s.meta.progress.interrupted !== null)?.meta.progress.interrupted ?? null,
  };
  writeMutantsReport(out, buildMutantsReport(results, { ...first.meta, command, progress, wallSeconds }));
  const bad = results.filter((r) => r.kind === 'catalogue' && r.status !== 'killed');
  log(
    `${shards.length} shards joined: ${results.length} mutants, ${results.filter((r) => r.status === 'killed').length} killed; report in ${shownPath(join(out, 'mutants.md'))}`,
  );
  return bad.length > 0 ? 1 : 0;
}
