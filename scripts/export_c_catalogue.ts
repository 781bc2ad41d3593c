/**
 * The C catalogue as standalone C regression tests: for the counterexample of each of its
 * 28 defects in test/ctier/export_cx/, whether `npm run replay -- FILE --export-c OUT.c`
 * exports it, and for each exported test its verdict built on the tier with the defect and
 * on the tier as it is (cc, the way the test's header says), or the export's one-line
 * refusal. Prints one markdown row per defect and the counts; builds in a temporary folder
 * it removes. Each binary runs its one recorded schedule: nothing is timed.
 *   npx tsx scripts/export_c_catalogue.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBase } from '../apps/export_c/build.js';
import { exportRefusal } from '../apps/export_c/export_scope.js';
import { exportAndRun } from '../apps/export_c/run_exported.js';
import { loadCatalogue, REPO_ROOT } from '../mutants/lib/catalogue.js';
import { loadCounterexample } from '../properties/counterexample_file.js';

const CX_DIR = join(REPO_ROOT, 'test/ctier/export_cx');

async function main(): Promise<void> {
  const made = spawnSync('make', ['-s', '-C', join(REPO_ROOT, 'native'), 'sched-header'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make -C native sched-header failed: ${made.stderr}`);
  const mutants = new Map((await loadCatalogue(join(REPO_ROOT, 'mutants/ctier'))).map((e) => [e.mutant.id, e.mutant]));
  const dir = mkdtempSync(join(tmpdir(), 'tierlab-export-c-'));
  let exported = 0;
  let right = 0;
  try {
    const base = await buildBase(dir);
    const rows = ['| defect | counterexample | export | with the defect | without it |', '|---|---|---|---|---|'];
    for (const f of readdirSync(CX_DIR).filter((x) => x.endsWith('.json')).sort()) {
      const cx = loadCounterexample(join(CX_DIR, f));
      const m = mutants.get(cx.mutant ?? '');
      if (m === undefined) throw new Error(`${f}: not a defect of the C catalogue`);
      const found = `level ${cx.level ?? 2}, ${cx.property}`;
      const refusal = exportRefusal(cx.property, m);
      if (refusal !== null) {
        rows.push(`| ${m.id} | ${found} | refused: ${refusal.split(/[:;]/)[0]} | - | - |`);
        continue;
      }
      exported++;
      const r = await exportAndRun(dir, base, f.replace(/\.json$/, ''), cx, m);
      if (r.defect.code === 1 && r.fixed.code === 0) right++;
      const cell = (x: { code: number; verdict: string }) =>
        `exit ${x.code}: ${x.verdict.split('\n')[0]?.slice(0, 110) ?? ''}`;
      rows.push(`| ${m.id} | ${found} | exported | ${cell(r.defect)} | ${cell(r.fixed)} |`);
    }
    process.stdout.write(`${rows.join('\n')}\n\n`);
    process.stdout.write(
      `${exported} of ${mutants.size} C catalogue defects exported; ${right} of them fail with the defect (exit 1) and pass without it (exit 0)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
