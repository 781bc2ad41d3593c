/**
 * `npm run mutants -- --tier c`: every C counterpart of the catalogue's defects
 * (mutants/ctier/) put into a scratch copy of native/ and killed under tierlab's scheduler
 * (mutants/lib/ctier_kill.ts), after the unmutated C tier passed the same runs (the
 * control). Each kill is shrunk, saved as a counterexample of the C tier and printed with
 * its one-line replay; the kill table goes to OUT/mutants-ctier.{json,md}.
 *
 *   npm run mutants -- --tier c [--mutant ID ...] [--runs N] [--seed N] [--level 1|2]
 *                      [--strategy random|pct] [--in-process] [--out DIR] [--catalogue-dir DIR]
 *   npm run mutants -- --tier c --replay FILE [--full]
 *
 * --runs bounds each mutant (default 3000 runs); nothing is timed for a verdict. Runs are
 * in forked children (a mutant may crash the tier) unless --in-process. Exits 1 when a
 * mutant survives or the control fails, 2 on bad input.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { killCMutant, type CKill, type CKillOptions } from '../../mutants/lib/ctier_kill.js';
import { buildCTierScratch } from '../../mutants/lib/ctier_scratch.js';
import type { Mutant } from '../../mutants/lib/types.js';
import { loadCounterexample, saveCounterexample } from '../../properties/counterexample_file.js';
import { EXIT, type ExitCode } from '../../src/check/exit_codes.js';
import { CTierHarness, harnessPath } from '../../src/engine/native/ctier_harness.js';
import { usageError } from './cli_args.js';
import { ensureHarnessBuilt } from './ctier_build.js';
import { replayCTierFile } from './ctier_replay.js';
import type { MutantsOptions } from './mutants_options.js';
import { prepareOutputDir } from './output_dir.js';

interface CTierMutantsOptions extends CKillOptions {
  readonly ids: readonly string[];
  /** the catalogue: mutants/ctier/, or --catalogue-dir (patches on files under native/) */
  readonly catalogueDir: string;
  readonly outDir: string;
}

interface Row {
  readonly id: string;
  readonly kill: CKill;
  readonly replay: string | null;
  readonly buildSeconds: number;
}

/** `npm run mutants -- --tier c ...`: the kills, or one counterexample's replay. */
export async function ctierMutants(m: MutantsOptions): Promise<ExitCode> {
  const catalogueDir = m.catalogueDir !== undefined ? resolve(m.catalogueDir) : join(REPO_ROOT, 'mutants/ctier');
  if (m.replay !== undefined) return ctierMutantReplay(resolve(m.replay), m.full, catalogueDir);
  const o: CTierMutantsOptions = {
    ids: m.ids,
    catalogueDir,
    runs: m.runs ?? 3000,
    seed: m.seed,
    level: m.level,
    strategy: m.strategy === 'pct' ? 'pct' : 'random',
    fresh: !m.inProcess,
    outDir: prepareOutputDir('mutants', 'out', m.out ?? join(REPO_ROOT, 'reports')),
  };
  return killAll(o);
}

async function killAll(o: CTierMutantsOptions): Promise<ExitCode> {
  ensureHarnessBuilt();
  const all = await loadCatalogue(o.catalogueDir);
  const unknown = o.ids.filter((id) => !all.some((e) => e.mutant.id === id));
  if (unknown.length > 0) usageError('mutants', `no C tier mutant ${unknown.join(', ')} (${o.catalogueDir})`);
  const chosen = all.filter((e) => o.ids.length === 0 || o.ids.includes(e.mutant.id));
  const control = killWith(harnessPath(), { ...o, runs: Math.min(o.runs, 400) });
  if (control.killed) {
    process.stdout.write(
      `CONTROL FAILED: the unmutated C tier fails ${control.failure?.property}: ${control.failure?.detail}\n`,
    );
    process.exit(EXIT.safety);
  }
  process.stdout.write(`control: the unmutated C tier passed ${control.runs} runs\n`);
  const rows: Row[] = [];
  for (const e of chosen) rows.push(oneMutant(e.mutant, o));
  writeTable(o.outDir, rows, o);
  const survived = rows.filter((r) => !r.kill.killed);
  process.stdout.write(`\n${rows.length - survived.length} of ${rows.length} C tier mutants killed\n`);
  return survived.length > 0 ? EXIT.safety : EXIT.ok;
}

function killWith(library: string, o: CKillOptions): CKill {
  const h = new CTierHarness(library);
  try {
    return killCMutant(h, o);
  } finally {
    h.close();
  }
}

function oneMutant(m: Mutant, o: CTierMutantsOptions): Row {
  const scratch = buildCTierScratch(REPO_ROOT, m);
  try {
    const kill = killWith(scratch.library, o);
    const f = kill.failure;
    let replay: string | null = null;
    if (f !== null) {
      const file = saveCounterexample(join(o.outDir, 'mutants-ctier'), {
        property: f.property,
        detail: f.detail,
        mutant: m.id,
        scenario: f.scenario,
        choices: f.choices,
        tier: 'c',
        level: o.level,
      });
      replay = `npm run mutants -- --tier c --replay ${file}`;
    }
    const line = kill.killed
      ? `killed by ${f?.property} after ${kill.runsToKill} runs (${kill.secondsToKill.toFixed(2)} s), shrunk to ${f?.choices.length} choices\n    ${f?.detail.slice(0, 200)}\n    replay: ${replay}`
      : `SURVIVED ${kill.runs} runs`;
    process.stdout.write(`${m.id.padEnd(36)} ${line}\n`);
    return { id: m.id, kill, replay, buildSeconds: scratch.buildSeconds };
  } finally {
    scratch.remove();
  }
}

function writeTable(dir: string, rows: readonly Row[], o: CTierMutantsOptions): void {
  const md = [
    '# C tier mutants under the scheduler',
    '',
    `${o.strategy} schedules, level ${o.level}, seed ${o.seed}, at most ${o.runs} runs a mutant; runs and seconds to the first failure, before shrinking.`,
    '',
    '| mutant | killed by | runs | seconds | shrunk schedule | replay |',
    '|---|---|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.kill.failure?.property ?? 'SURVIVED'} | ${r.kill.killed ? r.kill.runsToKill : r.kill.runs} | ` +
        `${r.kill.killed ? r.kill.secondsToKill.toFixed(2) : '-'} | ${r.kill.failure?.choices.length ?? '-'} | \`${r.replay ?? '-'}\` |`,
    ),
    '',
  ];
  writeFileSync(join(dir, 'mutants-ctier.md'), md.join('\n'));
  writeFileSync(join(dir, 'mutants-ctier.json'), `${JSON.stringify({ options: o, rows }, null, 2)}\n`);
}

/** `--tier c --replay FILE`: the file's mutant built, its schedule replayed on it. */
async function ctierMutantReplay(file: string, full: boolean, catalogueDir: string): Promise<ExitCode> {
  const cx = loadCounterexample(file);
  if (cx.tier !== 'c') usageError('mutants', `${file} is not a counterexample of the C tier (no "tier": "c")`);
  ensureHarnessBuilt();
  if (cx.mutant === null) return replayCTierFile(file, cx, full);
  const all = await loadCatalogue(catalogueDir);
  const m = all.find((e) => e.mutant.id === cx.mutant)?.mutant;
  if (m === undefined) usageError('mutants', `${file}: no C tier mutant ${cx.mutant ?? ''} (${catalogueDir})`);
  const scratch = buildCTierScratch(REPO_ROOT, m);
  try {
    return replayCTierFile(file, cx, full, scratch.library);
  } finally {
    scratch.remove();
  }
}
