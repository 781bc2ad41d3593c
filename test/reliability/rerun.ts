/**
 * `npm run reliability [-- ID ...]`: re-runs the reliability review's trials
 * (test/reliability/trials.ts), all of them or the ones named, one at a time, and prints
 * and writes the table (reports/reliability.md and .json): per trial its verdict and what
 * happened, and the counts (tried, clean, ok, inherent, skipped, defects). Exits 1 when any
 * trial is a defect. Takes several minutes: some trials run mutants or a full oracle matrix.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Workspace, type Outcome, type Verdict } from './tools.js';
import { TRIALS } from './trials.js';

const wanted = process.argv.slice(2);
const chosen = wanted.length > 0 ? TRIALS.filter((t) => wanted.includes(t.id)) : TRIALS;
const root = resolve('.');
const rows: { id: string; what: string; verdict: Verdict; observed: string; seconds: number }[] = [];
for (const t of chosen) {
  const w = new Workspace(root);
  const started = performance.now();
  let o: Outcome;
  try {
    o = await t.run(w);
  } catch (e) {
    o = { verdict: 'defect', observed: `the trial itself threw: ${(e as Error).message.split('\n')[0] ?? ''}` };
  } finally {
    rmSync(w.dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  rows.push({ id: t.id, what: t.what, verdict: o.verdict, observed: o.observed, seconds });
  process.stdout.write(
    `${t.id.padEnd(4)} ${o.verdict.padEnd(8)} ${seconds.toFixed(1).padStart(5)} s  ${t.what}: ${o.observed.slice(0, 200)}\n`,
  );
}
const count = (v: Verdict): number => rows.filter((r) => r.verdict === v).length;
const totals = {
  tried: rows.length,
  clean: count('clean'),
  ok: count('ok'),
  inherent: count('inherent'),
  skipped: count('skipped'),
  defects: count('defect'),
};
const summary = `tried ${totals.tried}: ${totals.clean} clean, ${totals.ok} ok, ${totals.inherent} inherent, ${totals.skipped} skipped, ${totals.defects} defects`;
process.stdout.write(`\n${summary}\n`);
const dir = 'reports';
mkdirSync(dir, { recursive: true });
const date = new Date().toISOString();
writeFileSync(join(dir, 'reliability.json'), `${JSON.stringify({ date, totals, rows }, null, 2)}\n`);
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const md = [
  '# tierlab reliability trials',
  '',
  `${date} - \`npm run reliability${wanted.length > 0 ? ` -- ${wanted.join(' ')}` : ''}\` - ${summary}`,
  '',
  'Clean: one line naming the problem and the exit code of its kind (2, or 74 for the environment). Ok: the correct result. Inherent: a library crashing in its own code. Skipped: a trial this machine cannot stage, with the reason.',
  '',
  '| # | trial | verdict | observed | s |',
  '|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.id} | ${cell(r.what)} | ${r.verdict === 'defect' ? '**defect**' : r.verdict} | ${cell(r.observed)} | ${r.seconds.toFixed(1)} |`,
  ),
  '',
];
writeFileSync(join(dir, 'reliability.md'), md.join('\n'));
process.exit(totals.defects > 0 ? 1 : 0);
