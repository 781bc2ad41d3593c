/**
 * `npm run native-defects -- [--backend cpu,vulkan|cuda,...] [--defect ID] [--fixture DIR]
 *                            [--devices 0,1] [--tokens N] [--report DIR] [--no-validation]
 *                            [--fake-cuda] [--build-into DIR | --prebuilt DIR --oracle FILE]`
 *
 * The defects that live below the tier (mutants/native/) put back into the native engine,
 * one at a time, in a scratch copy of native/, and each library run through the oracle on
 * the runs that reach its situation (on Vulkan under synchronization validation), on
 * each backend asked for (CPU and lavapipe by default). First, per backend, a control:
 * the same runs with the unpatched scratch build must pass, or no kill means anything.
 * Writes reports/native-defects.{json,md}, a kill table with the command that re-runs
 * each row; exits 0 when every defect is killed, 1 when one survives or errs (or a
 * control fails), 2 on bad input (an unknown backend or defect, a patch that no longer
 * applies).
 *
 * For a machine that builds nothing (the GPU machine, scripts/gpu/): `--build-into DIR`
 * only builds the control and every defect's library there, with DIR/defects.json saying
 * what each is; `--prebuilt DIR` then runs those libraries instead of building, with
 * `--oracle FILE` the bundled oracle to run them with, and `--no-validation` where the
 * Vulkan validation layer is not installed. `--fake-cuda` builds the CUDA libraries over
 * the host-only stand-in runtime (native/tests/fake_cuda.c: streams are threads, kernels
 * the CPU math), so the CUDA host code's defects run through the oracle without a GPU.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { loadNativeDefects } from '../../mutants/lib/native_catalogue.js';
import { NATIVE_BACKENDS, type NativeBackend, type NativeDefect } from '../../mutants/lib/native_defect.js';
import { buildNativeScratch, patchedNative, type NativeScratch } from '../../mutants/lib/native_scratch.js';
import { PatchError } from '../../mutants/lib/patch.js';
import { parseOrFail, usageError } from './cli_args.js';
import { runOracleChild, type OracleVerdict } from './kills/oracle_child.js';
import { writeKillTable, type KillRow } from './kills/kill_table.js';
import { Progress } from './progress.js';
import { shownPath } from '../report/shown_path.js';

const TOOL = 'native-defects';
/** the validation layer, core and synchronization checks (native/vulkan/vulkan.mk) */
const VK_SYNC_ENV = {
  VK_LOADER_LAYERS_ENABLE: '*validation*',
  VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation',
  TIERLAB_VK_VALIDATION: '1',
  VK_LAYER_ENABLES: 'VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT',
};

const { values } = parseOrFail(TOOL, {
  options: {
    backend: { type: 'string', default: 'cpu,vulkan' },
    defect: { type: 'string' },
    fixture: { type: 'string', default: 'fixtures/tiny-moe-fp8' },
    devices: { type: 'string' },
    tokens: { type: 'string', default: '32' },
    report: { type: 'string', default: 'reports' },
    'defects-dir': { type: 'string' },
    'build-into': { type: 'string' },
    prebuilt: { type: 'string' },
    oracle: { type: 'string' },
    'no-validation': { type: 'boolean' },
    'fake-cuda': { type: 'boolean' },
  },
  strict: true,
});

const backends = (values.backend ?? '').split(',') as NativeBackend[];
for (const b of backends)
  if (!NATIVE_BACKENDS.includes(b))
    usageError(TOOL, `--backend wants some of ${NATIVE_BACKENDS.join(', ')} (comma-separated), got '${b}'`);
const fixture = resolve(values.fixture ?? '');
if (!existsSync(fixture)) usageError(TOOL, `--fixture ${values.fixture}: no such model directory`);
const tokens = Number(values.tokens);
if (!Number.isInteger(tokens) || tokens < 1)
  usageError(TOOL, `--tokens wants a positive integer, got '${values.tokens}'`);
// one device on Vulkan (the backend drives one); two simulated devices on the CPU
const devicesOf = (b: NativeBackend): string => values.devices ?? (b === 'cpu' ? '0,1' : '0');

const prebuilt = values.prebuilt !== undefined ? resolve(values.prebuilt) : null;
const oracleScript = values.oracle !== undefined ? resolve(values.oracle) : undefined;
if (oracleScript !== undefined && !existsSync(oracleScript))
  usageError(TOOL, `--oracle ${values.oracle}: no such file`);
if (prebuilt !== null && values['build-into'] !== undefined)
  usageError(TOOL, '--prebuilt and --build-into exclude each other');

/** What a prebuilt directory holds: the defects, and the libraries built of them. */
const MANIFEST = 'defects.json';
const libraryIn = (dir: string, backend: NativeBackend, d: NativeDefect | null): string =>
  join(dir, backend, `${d?.id ?? 'control'}.so`);

let defects: NativeDefect[];
try {
  if (prebuilt !== null) {
    const manifest = join(prebuilt, MANIFEST);
    if (!existsSync(manifest)) usageError(TOOL, `--prebuilt ${values.prebuilt}: no ${MANIFEST} (made by --build-into)`);
    defects = JSON.parse(readFileSync(manifest, 'utf8')) as NativeDefect[];
  } else {
    defects = await loadNativeDefects(values['defects-dir'] !== undefined ? resolve(values['defects-dir']) : undefined);
  }
} catch (e) {
  usageError(TOOL, (e as Error).message);
}
if (values.defect !== undefined) {
  defects = defects.filter((d) => d.id === values.defect);
  if (defects.length === 0) usageError(TOOL, `no native defect '${values.defect}' (see mutants/native/)`);
  if (!backends.some((b) => defects[0]?.backends.includes(b)))
    usageError(
      TOOL,
      `native defect '${values.defect}' is not in the ${backends.join(', ')} code (it is in ${defects[0]?.backends.join(', ')})`,
    );
}
// a patch that no longer applies is bad input: the defect would silently be no defect
if (prebuilt === null) {
  for (const d of defects) {
    try {
      patchedNative(REPO_ROOT, d);
    } catch (e) {
      if (e instanceof PatchError) usageError(TOOL, e.message);
      throw e;
    }
  }
}

const progress = new Progress();

/** The oracle on every run the defect names, with this library; the first kill decides. */
function verdict(library: string, d: NativeDefect, backend: NativeBackend): OracleVerdict {
  let seconds = 0;
  const reached: string[] = [];
  for (const run of d.runs) {
    const v = runOracleChild({
      // a bundled oracle runs where it was started; the sources' one from the repository
      ...(oracleScript !== undefined ? { cwd: process.cwd(), script: oracleScript } : { cwd: REPO_ROOT }),
      args: [
        '--backend',
        backend,
        '--devices',
        devicesOf(backend),
        '--tokens',
        String(tokens),
        '--fixture',
        fixture,
        '--lib',
        library,
        '--only',
        run,
      ],
      env: { ...(backend === 'vulkan' && values['no-validation'] !== true ? VK_SYNC_ENV : {}), ...d.env },
      timeoutSeconds: 600,
    });
    seconds += v.seconds;
    if (v.status !== 'survived') return { ...v, seconds };
    if (v.evidence !== '') reached.push(v.evidence);
  }
  // a survivor's runs say what they reached (kill_table.ts shows it beside "no reason given")
  return { status: 'survived', evidence: reached.join('; '), seconds };
}

/** The library of a defect (null: the control): built in a scratch copy, or prebuilt. */
function build(d: NativeDefect | null, backend: NativeBackend): NativeScratch | string {
  if (prebuilt !== null) {
    const library = libraryIn(prebuilt, backend, d);
    if (!existsSync(library)) return `no prebuilt library ${library}`;
    return { dir: prebuilt, library, buildSeconds: 0, remove: () => undefined };
  }
  try {
    return buildNativeScratch(REPO_ROOT, d, backend, values['fake-cuda'] === true);
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim().split('\n').slice(-3).join(' ') ?? '';
    return `build failed: ${(e as Error).message.split('\n')[0]} ${stderr}`.slice(0, 300);
  }
}

if (values['build-into'] !== undefined) {
  // only the libraries, for a machine that builds nothing
  const into = resolve(values['build-into']);
  for (const backend of backends) {
    const mine = defects.filter((d) => d.backends.includes(backend));
    mkdirSync(join(into, backend), { recursive: true });
    for (const d of [null, ...mine]) {
      const scratch = build(d, backend);
      if (typeof scratch === 'string') usageError(TOOL, `${backend} ${d?.id ?? 'control'}: ${scratch}`);
      copyFileSync(scratch.library, libraryIn(into, backend, d));
      scratch.remove();
    }
  }
  writeFileSync(join(into, MANIFEST), `${JSON.stringify(defects, null, 2)}\n`);
  process.stdout.write(
    `${TOOL}: the control and ${defects.length} defects built for ${backends.join(', ')} into ${into}\n`,
  );
  process.exit(0);
}

/** The control on one backend: the unpatched sources, built the same way, pass every run used. */
function control(backend: NativeBackend, mine: readonly NativeDefect[]): void {
  progress.update(`${backend} control: building native/ unpatched`);
  const scratch = build(null, backend);
  if (typeof scratch === 'string') usageError(TOOL, `${backend} control ${scratch}`);
  try {
    for (const d of mine) {
      progress.update(`${backend} control: ${d.runs.join(', ')}`);
      const v = verdict(scratch.library, d, backend);
      if (v.status !== 'survived') {
        process.stderr.write(
          `${TOOL}: the unpatched ${backend} library fails the runs of ${d.id} (${v.status}: ${v.evidence}); no kill would mean anything\n`,
        );
        process.exit(1);
      }
    }
  } finally {
    scratch.remove();
  }
  progress.done(`${backend} control: the unpatched library passes every run used`);
}

const rows: KillRow[] = [];
const t0 = performance.now();
for (const backend of backends) {
  const mine = defects.filter((d) => d.backends.includes(backend));
  if (mine.length === 0) continue;
  control(backend, mine);
  for (const d of mine) {
    const command = `npm run native-defects -- --backend ${backend} --defect ${d.id}`;
    progress.update(`${backend} ${d.id}: building`);
    const scratch = build(d, backend);
    if (typeof scratch === 'string') {
      rows.push({ id: d.id, backend, status: 'error', evidence: scratch, seconds: 0, command });
      progress.done(`error    ${backend} ${d.id}: ${scratch}`);
      continue;
    }
    try {
      progress.update(`${backend} ${d.id}: oracle on ${d.runs.join(', ')}`);
      const v = verdict(scratch.library, d, backend);
      rows.push({
        id: d.id,
        backend,
        status: v.status,
        evidence: v.evidence,
        seconds: scratch.buildSeconds + v.seconds,
        command,
      });
      progress.done(
        `${v.status.padEnd(8)} ${backend} ${d.id}${v.evidence !== '' ? `: ${v.evidence.slice(0, 220)}` : ''}`,
      );
    } finally {
      scratch.remove();
    }
  }
}

const md = writeKillTable(values.report ?? 'reports', {
  name: 'native-defects',
  title: 'tierlab native defects',
  subject: 'defect',
  setup:
    `fixture \`${values.fixture}\`, ${tokens} tokens per run, devices ${backends.map((b) => `[${devicesOf(b)}] on ${b}`).join(', ')}` +
    `${!backends.includes('vulkan') ? '' : values['no-validation'] === true ? '; Vulkan without the validation layer' : '; Vulkan under the validation layer with synchronization validation'}; control: the unpatched library passes the same runs; ` +
    `${values['fake-cuda'] === true && backends.includes('cuda') ? 'CUDA on the host-only stand-in runtime (no GPU); ' : ''}` +
    `${((performance.now() - t0) / 1000).toFixed(0)} s in all`,
  rows,
});
const killed = rows.filter((r) => r.status === 'killed').length;
process.stdout.write(
  `\n${killed === rows.length ? 'PASS' : 'FAIL'}: ${killed}/${rows.length} native defects killed on ${backends.join(', ')}; kill table in ${shownPath(md)}\n`,
);
process.exit(killed === rows.length ? 0 : 1);
