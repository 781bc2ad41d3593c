/**
 * reports/mutants.json (for tools) and reports/mutants.md (for people): per mutant its
 * verdict, the property that killed it, time and schedules to the kill, the shrunk
 * counterexample's length and replay command; and the kill matrix: for each killed
 * mutant, how many sampled runs each property failed (no shrinking, no bail), with the
 * property that produced the shrunk counterexample marked.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MutantResult } from './result.js';
import { summarize, type Summary } from './stats.js';

export interface MutantsReport {
  readonly date: string;
  readonly command: string;
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

function matrix(rs: readonly MutantResult[]): string[] {
  const killed = rs.filter((r) => r.status === 'killed');
  const props = new Set<string>();
  for (const r of killed) {
    if (r.property !== null) props.add(r.property);
    for (const p of Object.keys(r.matrix ?? {})) props.add(p);
  }
  const cols = [...props].sort();
  if (cols.length === 0) return ['(no killed mutant)'];
  const md = [`| mutant | sampled runs | ${cols.join(' | ')} |`, `|---|---|${cols.map(() => '---').join('|')}|`];
  for (const r of killed) {
    const cells = cols.map((p) => {
      const n = r.matrix?.[p] ?? 0;
      const mark = p === r.property ? '**K** ' : '';
      return n > 0 || mark !== '' ? `${mark}${n > 0 ? n : ''}`.trim() : '';
    });
    md.push(`| ${cell(r.id)} | ${r.matrix === null ? '-' : r.matrixRuns} | ${cells.join(' | ')} |`);
  }
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
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mutants.json'), JSON.stringify(report, null, 2) + '\n');
  const cat = report.results.filter((r) => r.kind === 'catalogue');
  const ops = report.results.filter((r) => r.kind === 'operator');
  const md: string[] = [];
  const s = report.summary;
  md.push('# tierlab mutation run', '');
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
  md.push('', 'Score: killed / (mutants - equivalent - stillborn - inconclusive). Inconclusive: the shrunk counterexample fails on the unmutated sources too.', '');
  if (cat.length > 0) md.push('## Defect catalogue', '', ...table(cat), '');
  if (ops.length > 0) md.push('## Concurrency operators', '', ...table(ops), '');
  md.push(
    '## Kill matrix',
    '',
    'For each killed mutant: how many sampled runs failed each property (a run stops at its first violation; no shrinking, ' +
      'no bail). **K** marks the property whose shrunk counterexample killed the mutant.',
    '',
    ...matrix(report.results),
    '',
  );
  writeFileSync(join(dir, 'mutants.md'), md.join('\n') + '\n');
}
