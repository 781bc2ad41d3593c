/**
 * `npm run oracle-mutants -- [--mutant ID] [--backend cpu|vulkan|cuda] [--only TEXT]
 *                            [--fixture DIR] [--devices 0,1] [--tokens N] [--report DIR]
 *                            [--catalogue-dir DIR]`
 *
 * The catalogue's tier mutants (mutants/catalogue/) run through the real oracle: each
 * mutant's patches applied to a scratch copy of the sources (mutants/lib/scratch.ts),
 * and that copy's oracle run (on the CPU backend unless asked; `--only` narrows the
 * matrix to the runs whose name holds TEXT) over the whole matrix, the arranged runs
 * included (a swap parked on the open group at shutdown, a full ring during warmstart, a
 * failed upload of an expert's last tensor, a failed take on one of two devices). First
 * a control: the unpatched snapshot must pass, or no kill means anything. A mutant the
 * real engine cannot show survives with its reason (mutants/lib/oracle_unreachable.ts).
 * Writes reports/oracle-mutants.{json,md}, a kill table with the command that re-runs
 * each row; exits 0 when every mutant is killed or survives for a stated reason, 1 when
 * one survives unexplained, errs, or the control fails, 2 on bad input (an unknown
 * mutant, a patch that no longer applies, a missing fixture or library).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { ORACLE_UNREACHABLE } from '../../mutants/lib/oracle_unreachable.js';
import { applyMutant, PatchError } from '../../mutants/lib/patch.js';
import { makeScratch, makeSnapshot, type Scratch } from '../../mutants/lib/scratch.js';
import type { MutantEntry } from '../../mutants/lib/types.js';
import type { ExitCode } from '../../src/check/exit_codes.js';
import { libraryPath, NATIVE_BACKENDS, type NativeBackend } from '../../src/engine/native/library_file.js';
import { isOneOf, parseOrFail, sharedOptions, usageError, wordList } from './cli_args.js';
import { KILL_OPTIONS, readKillCommon, type KillCommon } from './kills/kill_options.js';
import { writeKillTable, type KillRow } from './kills/kill_table.js';
import { runOracleChild, type OracleChild } from './kills/oracle_child.js';
import { Progress } from './progress.js';
import { shownPath } from '../report/shown_path.js';

const TOOL = 'oracle-mutants';

function fail(message: string): never {
  return usageError(TOOL, message);
}

interface MutantsOracleOptions extends KillCommon {
  readonly devices: string;
  readonly backend: NativeBackend;
  readonly library: string;
  readonly only: string | undefined;
  readonly entries: readonly MutantEntry[];
}

async function readOptions(argv: readonly string[]): Promise<MutantsOracleOptions> {
  const { values } = parseOrFail(TOOL, argv, {
    options: { ...KILL_OPTIONS, ...sharedOptions('only', 'catalogue-dir'), mutant: { type: 'string' } },
    strict: true,
  });
  const common = readKillCommon(TOOL, values);
  const devices = values.devices ?? '0,1';
  if (!/^\d+(,\d+)*$/.test(devices)) fail(`--devices wants ids like 0,1, got '${devices}'`);
  const backend = values.backend ?? 'cpu';
  if (!isOneOf(NATIVE_BACKENDS, backend)) fail(`--backend must be ${wordList(NATIVE_BACKENDS)}, got '${backend}'`);
  const library = resolve(libraryPath(backend));
  if (!existsSync(library)) fail(`${library}: no ${backend} engine (make -C native ${backend})`);
  let entries: MutantEntry[];
  try {
    entries = await loadCatalogue(values['catalogue-dir'] !== undefined ? resolve(values['catalogue-dir']) : undefined);
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.mutant !== undefined) {
    entries = entries.filter((e) => e.mutant.id === values.mutant);
    if (entries.length === 0) fail(`no catalogue mutant '${values.mutant}' (see mutants/catalogue/)`);
  }
  // a kill table of nothing would pass having checked nothing
  if (entries.length === 0) fail('the catalogue holds no mutant to run');
  // a patch that no longer applies is bad input: the mutant would silently be no mutant
  for (const e of entries) {
    try {
      applyMutant(e.mutant, (f) => readFileSync(join(REPO_ROOT, f), 'utf8'));
    } catch (err) {
      if (err instanceof PatchError) fail(err.message);
      throw err;
    }
  }
  return { ...common, devices, backend, library, only: values.only, entries };
}

/** The oracle of the tree at `cwd` over the matrix (or the runs --only names). */
function oracleIn(o: MutantsOracleOptions, cwd: string): OracleChild {
  return {
    cwd,
    args: [
      ...['--backend', o.backend, '--devices', o.devices, '--tokens', String(o.tokens)],
      ...['--fixture', o.fixture, '--lib', o.library],
      ...(o.only !== undefined ? ['--only', o.only] : []),
    ],
    timeoutSeconds: 600,
  };
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = await readOptions(argv);
  const progress = new Progress();
  // one copy of the sources for the whole run: the tree may change under it (a scratch
  // folder: a signal or an error removes it, as it removes the mutants' copies)
  const snapshot = makeSnapshot(REPO_ROOT);
  try {
    return await judge(o, progress, snapshot);
  } finally {
    snapshot.remove();
  }
}

/** The control, then every mutant through the oracle; the kill table and the verdict. */
async function judge(o: MutantsOracleOptions, progress: Progress, snapshot: Scratch): Promise<ExitCode> {
  const t0 = performance.now();
  progress.update('control: the unpatched sources through the whole matrix');
  const controlVerdict = await runOracleChild(oracleIn(o, snapshot.dir));
  if (controlVerdict.status !== 'survived') {
    process.stderr.write(
      `${TOOL}: the unpatched sources fail the oracle (${controlVerdict.status}: ${controlVerdict.evidence}); no kill would mean anything\n`,
    );
    return 1;
  }
  progress.done(`control: the unpatched sources pass every run (${controlVerdict.seconds.toFixed(1)} s)`);
  const rows: KillRow[] = [];
  const nodeModules = join(REPO_ROOT, 'node_modules');
  for (const [i, e] of o.entries.entries()) {
    const id = e.mutant.id;
    const command = `npm run oracle-mutants -- --mutant ${id}${o.backend !== 'cpu' ? ` --backend ${o.backend}` : ''}`;
    progress.update(`[${i + 1}/${o.entries.length}] ${id}`);
    const scratch = makeScratch(snapshot.dir, nodeModules, e.mutant);
    try {
      const v = await runOracleChild(oracleIn(o, scratch.dir));
      const why = v.status === 'survived' ? (ORACLE_UNREACHABLE[id] ?? null) : null;
      rows.push({ id, backend: o.backend, status: v.status, evidence: v.evidence, why, seconds: v.seconds, command });
      const said =
        v.status === 'survived' ? `: ${why ?? 'no reason given'}` : v.evidence !== '' ? `: ${v.evidence}` : '';
      progress.done(`${v.status.padEnd(8)} ${id}${said.slice(0, 240)}`);
      if (v.status === 'killed' && ORACLE_UNREACHABLE[id] !== undefined) {
        process.stderr.write(
          `${TOOL}: ${id} is killed, yet mutants/lib/oracle_unreachable.ts says the real engine cannot show it; drop that entry\n`,
        );
      }
    } finally {
      scratch.remove();
    }
  }
  const md = writeKillTable(o.report, {
    name: 'oracle-mutants',
    title: 'tierlab catalogue mutants through the real oracle',
    subject: 'mutant',
    setup:
      `${o.backend} engine, fixture \`${o.fixtureArg}\`, devices [${o.devices}], ${o.tokens} tokens per run, ${o.only !== undefined ? `the oracle runs matching '${o.only}'` : 'the whole oracle matrix per mutant (arranged runs included)'}; ` +
      `control: the unpatched sources pass it; ${((performance.now() - t0) / 1000).toFixed(0)} s in all`,
    rows,
  });
  const killed = rows.filter((r) => r.status === 'killed').length;
  const explained = rows.filter((r) => r.status === 'survived' && r.why !== null).length;
  const ok = killed + explained === rows.length;
  process.stdout.write(
    `\n${ok ? 'PASS' : 'FAIL'}: ${killed}/${rows.length} catalogue mutants killed by the real oracle, ${explained} survive for a stated reason; kill table in ${shownPath(md)}\n`,
  );
  return ok ? 0 : 1;
}
