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
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { loadNativeDefects } from '../../mutants/lib/native_catalogue.js';
import type { NativeDefect } from '../../mutants/lib/native_defect.js';
import { buildNativeScratch, patchedNative, type NativeScratch } from '../../mutants/lib/native_scratch.js';
import { PatchError } from '../../mutants/lib/patch.js';
import type { ExitCode } from '../../src/check/exit_codes.js';
import { NATIVE_BACKENDS, type NativeBackend } from '../../src/engine/native/library_file.js';
import { environmentErrorOf } from '../../src/input/environment_error.js';
import { MAX_REPORT_BYTES, readInputJson } from '../../src/input/read_file.js';
import { writeReportFile } from '../../src/input/report_file.js';
import { parseOrFail, usageError } from './cli_args.js';
import { KILL_OPTIONS, readKillCommon, type KillCommon } from './kills/kill_options.js';
import { writeKillTable, type KillRow } from './kills/kill_table.js';
import { runOracleChild, type OracleVerdict } from './kills/oracle_child.js';
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
/** What a prebuilt directory holds: the defects, and the libraries built of them. */
const MANIFEST = 'defects.json';

function fail(message: string): never {
  return usageError(TOOL, message);
}

interface DefectsOptions extends KillCommon {
  readonly backends: readonly NativeBackend[];
  readonly devices: string | undefined;
  readonly defect: string | undefined;
  readonly defectsDir: string | undefined;
  readonly buildInto: string | undefined;
  readonly prebuilt: string | null;
  readonly prebuiltArg: string | undefined;
  readonly oracleScript: string | undefined;
  readonly validation: boolean;
  readonly fakeCuda: boolean;
}

function readOptions(argv: readonly string[]): DefectsOptions {
  const { values } = parseOrFail(TOOL, argv, {
    options: {
      ...KILL_OPTIONS,
      defect: { type: 'string' },
      'defects-dir': { type: 'string' },
      'build-into': { type: 'string' },
      prebuilt: { type: 'string' },
      oracle: { type: 'string' },
      'no-validation': { type: 'boolean' },
      'fake-cuda': { type: 'boolean' },
    },
    strict: true,
  });
  const backends = (values.backend ?? 'cpu,vulkan').split(',') as NativeBackend[];
  for (const b of backends)
    if (!NATIVE_BACKENDS.includes(b))
      fail(`--backend wants some of ${NATIVE_BACKENDS.join(', ')} (comma-separated), got '${b}'`);
  const common = readKillCommon(TOOL, values);
  const prebuilt = values.prebuilt !== undefined ? resolve(values.prebuilt) : null;
  const oracleScript = values.oracle !== undefined ? resolve(values.oracle) : undefined;
  if (oracleScript !== undefined && !existsSync(oracleScript)) fail(`--oracle ${values.oracle}: no such file`);
  if (prebuilt !== null && values['build-into'] !== undefined) fail('--prebuilt and --build-into exclude each other');
  return {
    ...common,
    backends,
    devices: values.devices,
    defect: values.defect,
    defectsDir: values['defects-dir'],
    buildInto: values['build-into'],
    prebuilt,
    prebuiltArg: values.prebuilt,
    oracleScript,
    validation: values['no-validation'] !== true,
    fakeCuda: values['fake-cuda'] === true,
  };
}

/** one device on Vulkan (the backend drives one); two simulated devices on the CPU */
function devicesOf(o: DefectsOptions, b: NativeBackend): string {
  return o.devices ?? (b === 'cpu' ? '0,1' : '0');
}

function libraryIn(dir: string, backend: NativeBackend, d: NativeDefect | null): string {
  return join(dir, backend, `${d?.id ?? 'control'}.so`);
}

/** The defects asked for, each patch checked to apply (one that no longer applies is bad input). */
async function loadDefects(o: DefectsOptions): Promise<NativeDefect[]> {
  let defects: NativeDefect[];
  try {
    if (o.prebuilt !== null) {
      const manifest = join(o.prebuilt, MANIFEST);
      if (!existsSync(manifest)) fail(`--prebuilt ${o.prebuiltArg}: no ${MANIFEST} (made by --build-into)`);
      defects = readInputJson(manifest, { what: 'a defect manifest', maxBytes: MAX_REPORT_BYTES }) as NativeDefect[];
    } else {
      defects = await loadNativeDefects(o.defectsDir !== undefined ? resolve(o.defectsDir) : undefined);
    }
  } catch (e) {
    fail((e as Error).message);
  }
  if (o.defect !== undefined) {
    defects = defects.filter((d) => d.id === o.defect);
    if (defects.length === 0) fail(`no native defect '${o.defect}' (see mutants/native/)`);
    if (!o.backends.some((b) => defects[0]?.backends.includes(b)))
      fail(
        `native defect '${o.defect}' is not in the ${o.backends.join(', ')} code (it is in ${defects[0]?.backends.join(', ')})`,
      );
  }
  // a patch that no longer applies is bad input: the defect would silently be no defect
  if (o.prebuilt === null) {
    for (const d of defects) {
      try {
        patchedNative(REPO_ROOT, d);
      } catch (e) {
        if (e instanceof PatchError) fail(e.message);
        throw e;
      }
    }
  }
  return defects;
}

/** The oracle on every run the defect names, with this library; the first kill decides. */
async function verdict(
  o: DefectsOptions,
  library: string,
  d: NativeDefect,
  backend: NativeBackend,
): Promise<OracleVerdict> {
  let seconds = 0;
  const reached: string[] = [];
  for (const run of d.runs) {
    const v = await runOracleChild({
      // a bundled oracle runs where it was started; the sources' one from the repository
      ...(o.oracleScript !== undefined ? { cwd: process.cwd(), script: o.oracleScript } : { cwd: REPO_ROOT }),
      args: [
        ...['--backend', backend, '--devices', devicesOf(o, backend), '--tokens', String(o.tokens)],
        ...['--fixture', o.fixture, '--lib', library, '--only', run],
      ],
      env: { ...(backend === 'vulkan' && o.validation ? VK_SYNC_ENV : {}), ...d.env },
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
async function build(
  o: DefectsOptions,
  d: NativeDefect | null,
  backend: NativeBackend,
): Promise<NativeScratch | string> {
  if (o.prebuilt !== null) {
    const library = libraryIn(o.prebuilt, backend, d);
    if (!existsSync(library)) return `no prebuilt library ${library}`;
    return { dir: o.prebuilt, library, buildSeconds: 0, remove: () => undefined };
  }
  try {
    return await buildNativeScratch(REPO_ROOT, d, backend, o.fakeCuda);
  } catch (e) {
    // a full temporary directory is the machine's failure, not the defect's (exit 74)
    if (environmentErrorOf(e) !== null) throw e;
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim().split('\n').slice(-3).join(' ') ?? '';
    return `build failed: ${(e as Error).message.split('\n')[0]} ${stderr}`.slice(0, 300);
  }
}

/** Only the libraries, for a machine that builds nothing: the control and each defect's, with the manifest. */
async function buildInto(o: DefectsOptions, into: string, defects: readonly NativeDefect[]): Promise<ExitCode> {
  for (const backend of o.backends) {
    const mine = defects.filter((d) => d.backends.includes(backend));
    mkdirSync(join(into, backend), { recursive: true });
    for (const d of [null, ...mine]) {
      const scratch = await build(o, d, backend);
      if (typeof scratch === 'string') fail(`${backend} ${d?.id ?? 'control'}: ${scratch}`);
      copyFileSync(scratch.library, libraryIn(into, backend, d));
      scratch.remove();
    }
  }
  writeReportFile(join(into, MANIFEST), `${JSON.stringify(defects, null, 2)}\n`);
  process.stdout.write(
    `${TOOL}: the control and ${defects.length} defects built for ${o.backends.join(', ')} into ${into}\n`,
  );
  return 0;
}

/** The control on one backend: the unpatched sources, built the same way, pass every run used. */
async function control(
  o: DefectsOptions,
  progress: Progress,
  backend: NativeBackend,
  mine: readonly NativeDefect[],
): Promise<boolean> {
  progress.update(`${backend} control: building native/ unpatched`);
  const scratch = await build(o, null, backend);
  if (typeof scratch === 'string') fail(`${backend} control ${scratch}`);
  try {
    for (const d of mine) {
      progress.update(`${backend} control: ${d.runs.join(', ')}`);
      const v = await verdict(o, scratch.library, d, backend);
      if (v.status !== 'survived') {
        process.stderr.write(
          `${TOOL}: the unpatched ${backend} library fails the runs of ${d.id} (${v.status}: ${v.evidence}); no kill would mean anything\n`,
        );
        return false;
      }
    }
  } finally {
    scratch.remove();
  }
  progress.done(`${backend} control: the unpatched library passes every run used`);
  return true;
}

/** One defect on one backend: built, run through the oracle, its row. */
async function defectRow(
  o: DefectsOptions,
  progress: Progress,
  d: NativeDefect,
  backend: NativeBackend,
): Promise<KillRow> {
  const command = `npm run native-defects -- --backend ${backend} --defect ${d.id}`;
  progress.update(`${backend} ${d.id}: building`);
  const scratch = await build(o, d, backend);
  if (typeof scratch === 'string') {
    progress.done(`error    ${backend} ${d.id}: ${scratch}`);
    return { id: d.id, backend, status: 'error', evidence: scratch, seconds: 0, command };
  }
  try {
    progress.update(`${backend} ${d.id}: oracle on ${d.runs.join(', ')}`);
    const v = await verdict(o, scratch.library, d, backend);
    progress.done(
      `${v.status.padEnd(8)} ${backend} ${d.id}${v.evidence !== '' ? `: ${v.evidence.slice(0, 220)}` : ''}`,
    );
    return {
      id: d.id,
      backend,
      status: v.status,
      evidence: v.evidence,
      seconds: scratch.buildSeconds + v.seconds,
      command,
    };
  } finally {
    scratch.remove();
  }
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = readOptions(argv);
  const defects = await loadDefects(o);
  // a kill table of nothing would pass having checked nothing
  if (!defects.some((d) => o.backends.some((b) => d.backends.includes(b))))
    fail(`no native defect to run on ${o.backends.join(', ')} (${defects.length} defects loaded)`);
  if (o.buildInto !== undefined) return buildInto(o, resolve(o.buildInto), defects);
  const progress = new Progress();
  const rows: KillRow[] = [];
  const t0 = performance.now();
  for (const backend of o.backends) {
    const mine = defects.filter((d) => d.backends.includes(backend));
    if (mine.length === 0) continue;
    if (!(await control(o, progress, backend, mine))) return 1;
    for (const d of mine) rows.push(await defectRow(o, progress, d, backend));
  }
  const vulkan = !o.backends.includes('vulkan')
    ? ''
    : !o.validation
      ? '; Vulkan without the validation layer'
      : '; Vulkan under the validation layer with synchronization validation';
  const fake = o.fakeCuda && o.backends.includes('cuda') ? 'CUDA on the host-only stand-in runtime (no GPU); ' : '';
  const md = writeKillTable(o.report, {
    name: 'native-defects',
    title: 'tierlab native defects',
    subject: 'defect',
    setup:
      `fixture \`${o.fixtureArg}\`, ${o.tokens} tokens per run, devices ${o.backends.map((b) => `[${devicesOf(o, b)}] on ${b}`).join(', ')}` +
      `${vulkan}; control: the unpatched library passes the same runs; ${fake}` +
      `${((performance.now() - t0) / 1000).toFixed(0)} s in all`,
    rows,
  });
  const killed = rows.filter((r) => r.status === 'killed').length;
  process.stdout.write(
    `\n${killed === rows.length ? 'PASS' : 'FAIL'}: ${killed}/${rows.length} native defects killed on ${o.backends.join(', ')}; kill table in ${shownPath(md)}\n`,
  );
  return killed === rows.length ? 0 : 1;
}
