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
import { makeScratch, makeSnapshot } from '../../mutants/lib/scratch.js';
import type { MutantEntry } from '../../mutants/lib/types.js';
import { libraryPath } from '../../src/engine/native/binding.js';
import { parseOrFail, usageError } from './cli_args.js';
import { writeKillTable, type KillRow } from './kills/kill_table.js';
import { runOracleChild, type OracleChild } from './kills/oracle_child.js';
import { Progress } from './progress.js';
import { shownPath } from '../report/shown_path.js';

const TOOL = 'oracle-mutants';

const { values } = parseOrFail(TOOL, {
  options: {
    mutant: { type: 'string' },
    backend: { type: 'string', default: 'cpu' },
    only: { type: 'string' },
    fixture: { type: 'string', default: 'fixtures/tiny-moe-fp8' },
    devices: { type: 'string', default: '0,1' },
    tokens: { type: 'string', default: '32' },
    report: { type: 'string', default: 'reports' },
    'catalogue-dir': { type: 'string' },
  },
  strict: true,
});

const fixture = resolve(values.fixture ?? '');
if (!existsSync(fixture)) usageError(TOOL, `--fixture ${values.fixture}: no such model directory`);
const tokens = Number(values.tokens);
if (!Number.isInteger(tokens) || tokens < 1)
  usageError(TOOL, `--tokens wants a positive integer, got '${values.tokens}'`);
const devices = values.devices ?? '0,1';
if (!/^\d+(,\d+)*$/.test(devices)) usageError(TOOL, `--devices wants ids like 0,1, got '${devices}'`);
const backend = values.backend ?? 'cpu';
if (!['cpu', 'cuda', 'vulkan'].includes(backend))
  usageError(TOOL, `--backend must be cpu, cuda or vulkan, got '${backend}'`);
const library = resolve(libraryPath(backend));
if (!existsSync(library)) usageError(TOOL, `${library}: no ${backend} engine (make -C native ${backend})`);

let entries: MutantEntry[];
try {
  entries = await loadCatalogue(values['catalogue-dir'] !== undefined ? resolve(values['catalogue-dir']) : undefined);
} catch (e) {
  usageError(TOOL, (e as Error).message);
}
if (values.mutant !== undefined) {
  entries = entries.filter((e) => e.mutant.id === values.mutant);
  if (entries.length === 0) usageError(TOOL, `no catalogue mutant '${values.mutant}' (see mutants/catalogue/)`);
}
// a patch that no longer applies is bad input: the mutant would silently be no mutant
for (const e of entries) {
  try {
    applyMutant(e.mutant, (f) => readFileSync(join(REPO_ROOT, f), 'utf8'));
  } catch (err) {
    if (err instanceof PatchError) usageError(TOOL, err.message);
    throw err;
  }
}

const progress = new Progress();
// one copy of the sources for the whole run: the tree may change under it
const snapshot = makeSnapshot(REPO_ROOT);
process.on('exit', () => snapshot.remove());
const nodeModules = join(REPO_ROOT, 'node_modules');
const oracleIn = (cwd: string): OracleChild => ({
  cwd,
  args: [
    ...['--backend', backend, '--devices', devices, '--tokens', String(tokens), '--fixture', fixture, '--lib', library],
    ...(values.only !== undefined ? ['--only', values.only] : []),
  ],
  timeoutSeconds: 600,
});

const t0 = performance.now();
progress.update('control: the unpatched sources through the whole matrix');
const controlVerdict = runOracleChild(oracleIn(snapshot.dir));
if (controlVerdict.status !== 'survived') {
  process.stderr.write(
    `${TOOL}: the unpatched sources fail the oracle (${controlVerdict.status}: ${controlVerdict.evidence}); no kill would mean anything\n`,
  );
  process.exit(1);
}
progress.done(`control: the unpatched sources pass every run (${controlVerdict.seconds.toFixed(1)} s)`);

const rows: KillRow[] = [];
for (const [i, e] of entries.entries()) {
  const id = e.mutant.id;
  const command = `npm run oracle-mutants -- --mutant ${id}${backend !== 'cpu' ? ` --backend ${backend}` : ''}`;
  progress.update(`[${i + 1}/${entries.length}] ${id}`);
  const scratch = makeScratch(snapshot.dir, nodeModules, e.mutant);
  try {
    const v = runOracleChild(oracleIn(scratch.dir));
    const why = v.status === 'survived' ? (ORACLE_UNREACHABLE[id] ?? null) : null;
    rows.push({ id, backend, status: v.status, evidence: v.evidence, why, seconds: v.seconds, command });
    const said = v.status === 'survived' ? `: ${why ?? 'no reason given'}` : v.evidence !== '' ? `: ${v.evidence}` : '';
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

const md = writeKillTable(values.report ?? 'reports', {
  name: 'oracle-mutants',
  title: 'tierlab catalogue mutants through the real oracle',
  subject: 'mutant',
  setup:
    `${backend} engine, fixture \`${values.fixture}\`, devices [${devices}], ${tokens} tokens per run, ${values.only !== undefined ? `the oracle runs matching '${values.only}'` : 'the whole oracle matrix per mutant (arranged runs included)'}; ` +
    `control: the unpatched sources pass it; ${((performance.now() - t0) / 1000).toFixed(0)} s in all`,
  rows,
});
const killed = rows.filter((r) => r.status === 'killed').length;
const explained = rows.filter((r) => r.status === 'survived' && r.why !== null).length;
const ok = killed + explained === rows.length;
process.stdout.write(
  `\n${ok ? 'PASS' : 'FAIL'}: ${killed}/${rows.length} catalogue mutants killed by the real oracle, ${explained} survive for a stated reason; kill table in ${shownPath(md)}\n`,
);
process.exit(ok ? 0 : 1);
