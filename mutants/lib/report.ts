/**
 * reports/mutants.json (for tools) and reports/mutants.md (for people): per mutant its
 * verdict, the property that killed it, time and schedules to the kill, the shrunk
 * counterexample's length and replay command; and the kill matrix: one row per mutant
 * that ran (survivors too, with no mark), one column per catalogued property (so one that
 * no mutant made fail shows as an empty column, and is listed) and CRASH; a cell counts
 * the sampled runs (no shrinking, no bail) that failed that property, and the property
 * of the shrunk counterexample that killed the mutant is marked.
 *
 * The report is written after every finished mutant, marked partial until the run ends
 * (or with the signal that interrupted it); each file is replaced whole (written aside,
 * then renamed), so a kill never leaves half a report.
 */
import { join } from 'node:path';
import { writeReportFile } from '../../src/input/report_file.js';
import { PROPERTY_IDS, type PropertyId } from '../../src/check/catalogue.js';
import type { MutantResult } from './result.js';
import { summarize, type Summary } from './stats.js';

/** How far the run got: the report is rewritten as mutants finish. */
export interface MutantsProgress {
  /** mutants the run was asked to judge (equivalent ones skipped included) */
  readonly planned: number;
  readonly finished: number;
  readonly complete: boolean;
  /** the signal that ended the run early, or null */
  readonly interrupted: string | null;
}

export interface MutantsReport {
  readonly date: string;
  readonly command: string;
  readonly progress: MutantsProgress;
  readonly settings: Record<string, unknown>;
  readonly machine: { cores: number; loadAverageAtStart: readonly number[] };
  /** the commit the snapshot was taken from, and source files that differed from it */
  readonly sources: { commit: string; changed: readonly string[] };
  readonly wallSeconds: number;
  readonly summary: { catalogue: Summary; operators: Summary };
  readonly results: readonly MutantResult[];
}

function fmt(x: number | null, digits = 2): string {
  return x === null ? '-' : x.toFixed(digits);
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function summaryLine(name: string, s: Summary): string {
  return (
    `| ${name} | ${s.total} | ${s.killed} | ${s.survived} | ${s.equivalent} | ${s.stillborn} | ${s.inconclusive} | ` +
    `${s.score === null ? '-' : `${(100 * s.score).toFixed(1)} %`} | ${fmt(s.secondsToKillMedian)} / ${fmt(s.secondsToKillWorst)} | ` +
    `${fmt(s.wallSecondsMedian, 1)} / ${fmt(s.wallSecondsWorst, 1)} | ${fmt(s.stepsMedian, 0)} / ${fmt(s.choicesMedian, 0)} |`
  );
}

function verdict(r: MutantResult): string {
  if (r.status === 'killed') {
    return `killed by **${r.property}**${r.asExpected === false ? ' (not an expected property)' : ''}${r.error === null ? '' : ` (${r.error})`}`;
  }
  if (r.status === 'survived') return '**SURVIVED**';
  if (r.status === 'stillborn') return `stillborn: ${r.error ?? ''}`;
  if (r.status === 'inconclusive') return `inconclusive (${r.property ?? ''}): ${r.error ?? ''}`;
  return `equivalent: ${r.equivalentReason ?? ''}`;
}

function table(rs: readonly MutantResult[]): string[] {
  const md = [
    '| mutant | where | what | verdict | suite | runs to kill | s to kill | wall s | choices / steps | replay |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rs) {
    md.push(
      `| ${cell(r.id)} | ${cell(r.source)} | ${cell(r.title)} | ${cell(verdict(r))} | ${r.suite ?? '-'} | ${r.runsToKill ?? (r.runs !== null ? `(${r.runs} run)` : '-')} | ` +
        `${fmt(r.secondsToKill)} | ${r.status === 'equivalent' ? '-' : fmt(r.wallSeconds, 1)} | ${r.choices ?? '-'} / ${r.steps ?? '-'} | ${r.replay !== null ? `\`${r.replay}\`` : '-'} |`,
    );
  }
  return md;
}

/** the kill matrix's last column: sampled runs in which the simulator itself threw */
const CRASH = 'CRASH' as const;

function matrix(rs: readonly MutantResult[]): string[] {
  const ran = rs.filter((r) => r.status === 'killed' || r.status === 'survived' || r.status === 'inconclusive');
  if (ran.length === 0) return ['(no mutant ran to a verdict)'];
  const cols: readonly (PropertyId | typeof CRASH)[] = [...PROPERTY_IDS, CRASH];
  const md = [
    `| mutant | verdict | sampled runs | ${cols.join(' | ')} |`,
    `|---|---|---|${cols.map(() => '---').join('|')}|`,
  ];
  const exercised = new Set<string>();
  for (const r of ran) {
    const cells = cols.map((p) => {
      const n = r.matrix?.[p] ?? 0;
      const killer = r.status === 'killed' && p === r.property;
      if (n > 0 || killer) exercised.add(p);
      return `${killer ? '**K** ' : ''}${n > 0 ? n : ''}`.trim();
    });
    const sampled =
      r.matrix !== null
        ? String(r.matrixRuns)
        : r.status === 'survived'
          ? `(${r.runs ?? 0} searched, none failed)`
          : '-';
    const verdict = r.status === 'killed' ? 'killed' : r.status === 'survived' ? '**SURVIVED**' : 'inconclusive';
    md.push(`| ${cell(r.id)} | ${verdict} | ${sampled} | ${cells.join(' | ')} |`);
  }
  const unexercised = PROPERTY_IDS.filter((p) => !exercised.has(p));
  const survivors = ran.filter((r) => r.status === 'survived').map((r) => r.id);
  md.push(
    '',
    `Properties no mutant of this run made fail: ${unexercised.length > 0 ? unexercised.join(', ') : 'none'}.`,
    `Survivors (rows with no mark): ${survivors.length > 0 ? survivors.map(cell).join(', ') : 'none'}.`,
  );
  return md;
}

export function buildMutantsReport(
  results: readonly MutantResult[],
  meta: Omit<MutantsReport, 'summary' | 'results'>,
): MutantsReport {
  return {
    ...meta,
    summary: {
      catalogue: summarize(results.filter((r) => r.kind === 'catalogue')),
      operators: summarize(results.filter((r) => r.kind === 'operator')),
    },
    results,
  };
}

export function writeMutantsReport(dir: string, report: MutantsReport): void {
  writeReportFile(join(dir, 'mutants.json'), JSON.stringify(report, null, 2) + '\n');
  const cat = report.results.filter((r) => r.kind === 'catalogue');
  const ops = report.results.filter((r) => r.kind === 'operator');
  const md: string[] = [];
  const s = report.summary;
  md.push('# tierlab mutation run', '');
  const p = report.progress;
  if (!p.complete) {
    md.push(
      `**PARTIAL**: ${p.finished} of ${p.planned} mutants finished` +
        (p.interrupted !== null
          ? ` when the run was interrupted by ${p.interrupted}.`
          : '; the run is still going (this report is rewritten as mutants finish).'),
      '',
    );
  }
  md.push(
    `${report.date} - \`${report.command}\` - ${report.machine.cores} cores, load average at start ` +
      `${report.machine.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')} - ${report.wallSeconds.toFixed(0)} s in all`,
    '',
    `Sources: commit ${report.sources.commit}${report.sources.changed.length > 0 ? `, with uncommitted changes to ${report.sources.changed.join(', ')}` : ''}.`,
    '',
  );
  md.push(
    'Seconds to kill: search time until the failing schedule (suites before it plus the failing one), from the properties report; ' +
      'wall seconds: the whole properties process (start-up, search, shrinking, report). Choices / steps: the shrunk counterexample.',
    '',
  );
  md.push(
    '| set | mutants | killed | survived | equivalent | stillborn | inconclusive | score | s to kill (median / worst) | wall s (median / worst) | steps / choices (median) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  if (cat.length > 0) md.push(summaryLine('catalogue', s.catalogue));
  if (ops.length > 0) md.push(summaryLine('operators', s.operators));
  md.push(
    '',
    'Score: killed / (mutants - equivalent - stillborn - inconclusive). Inconclusive: the shrunk counterexample fails on the unmutated sources too.',
    '',
  );
  if (cat.length > 0) md.push('## Defect catalogue', '', ...table(cat), '');
  if (ops.length > 0) md.push('## Concurrency operators', '', ...table(ops), '');
  md.push(
    '## Kill matrix',
    '',
    'Mutants down, properties across. For each killed mutant: how many runs of a sampling pass (every suite, no shrinking, ' +
      'no bail; a run stops at its first violation) failed each property; **K** marks the property whose shrunk ' +
      'counterexample killed it. A survivor is a row with no mark; a property no mutant made fail is an empty column. ' +
      `${CRASH}: sampled runs in which the simulator itself threw, outside the tier's threads (an exception in a thread is a ` +
      'SAFE-NO-CRASH violation): a harness bug, and the column should stay empty. The sampling pass is time-bounded ' +
      '(--matrix-seconds), so its counts vary from run to run; the verdicts and counterexamples do not.',
    '',
    ...matrix(report.results),
    '',
  );
  writeReportFile(join(dir, 'mutants.md'), md.join('\n') + '\n');
}
