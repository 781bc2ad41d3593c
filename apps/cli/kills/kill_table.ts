/**
 * A kill table in the form of reports/mutants.md: one row per defect (or mutant) and
 * backend, killed or survived (or an error), what caught it or why it survives, the
 * seconds it took, and the command that re-runs that row alone. Written as JSON and
 * markdown.
 */
import { join } from 'node:path';
import { writeReportFile } from '../../../src/input/report_file.js';

export interface KillRow {
  readonly id: string;
  readonly backend: string;
  readonly status: 'killed' | 'survived' | 'error';
  /** killed: the run and what failed in it; error: what went wrong; survived: what its
   *  runs reached (may be empty) */
  readonly evidence: string;
  /** survived: why the real engine cannot show the defect (null: nobody said why) */
  readonly why?: string | null;
  readonly seconds: number;
  readonly command: string;
}

export interface KillTable {
  /** file stem under the report directory: reports/<name>.json and .md */
  readonly name: string;
  readonly title: string;
  /** what a row is: the first column's header */
  readonly subject: 'defect' | 'mutant';
  /** what ran, in a sentence (fixture, devices, tokens, control) */
  readonly setup: string;
  readonly rows: readonly KillRow[];
}

export function writeKillTable(dir: string, t: KillTable): string {
  const killed = t.rows.filter((r) => r.status === 'killed').length;
  const date = new Date().toISOString();
  writeReportFile(
    join(dir, `${t.name}.json`),
    `${JSON.stringify({ date, title: t.title, setup: t.setup, killed, total: t.rows.length, rows: t.rows }, null, 2)}\n`,
  );
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const md = [
    `# ${t.title}: ${killed}/${t.rows.length} killed`,
    '',
    `${date} - ${t.setup}`,
    '',
    `| ${t.subject} | backend | verdict | caught by (survived: why) | seconds | re-run |`,
    '|---|---|---|---|---|---|',
    ...t.rows.map((r) => {
      const what =
        r.status === 'survived'
          ? (r.why ?? `no reason given${r.evidence !== '' ? ` (the runs reached: ${r.evidence})` : ''}`)
          : r.evidence;
      return `| ${r.id} | ${r.backend} | ${r.status === 'killed' ? 'killed' : `**${r.status}**`} | ${cell(what) || '-'} | ${r.seconds.toFixed(1)} | \`${r.command}\` |`;
    }),
    '',
  ];
  writeReportFile(join(dir, `${t.name}.md`), md.join('\n'));
  return join(dir, `${t.name}.md`);
}
