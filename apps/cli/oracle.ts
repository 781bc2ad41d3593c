/**
 * `npm run oracle -- --backend cpu|cuda|vulkan [--devices 0,1] [--tokens N]
 *                    [--fixture DIR] [--report DIR] [--only TEXT] [--lib FILE]`
 *
 * Token-exact oracle runs of the tiny MoE model on the native engine, driven by the
 * same tier the simulator checks. Every run must reproduce the fixture's reference
 * tokens (from the independent float64 reference) and the CPU-only run's hidden states
 * bit for bit. Writes reports/oracle-<backend>.json and .md; exits 1 on any mismatch or
 * violation, 2 on bad input (arguments, environment, library, fixture, or devices the
 * engine cannot be created on: one engine is created before the matrix, so a missing
 * GPU or driver is one line, not fifteen failed runs). SIGINT or SIGTERM removes the
 * heat-file directory, writes the report of the runs finished (marked interrupted) and
 * exits 130 or 143.
 */
import { libraryPath, NativeEngineLib, NativeError } from '../../src/engine/native/binding.js';
import { FixtureError, loadModel } from '../../src/fixture/container.js';
import { engineModelOf } from '../../src/fixture/engine_model.js';
import type { LoadedModel } from '../../src/fixture/model_types.js';
import { oracleMatrix } from '../oracle/oracle_matrix.js';
import { writeOracleReport, type OracleRow, type Validation } from '../oracle/oracle_report.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { newHeatDir, removeHeatDir, runOracle } from '../oracle/oracle_run.js';
import { EXIT } from '../../src/check/exit_codes.js';
import { Progress } from './progress.js';
import { intOption, parseOrFail, reportUnexpectedErrors, usageError } from './cli_args.js';
import { prepareOutputDir, shownPath } from './output_dir.js';

reportUnexpectedErrors('oracle');
// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('oracle', message);
}

const { values } = parseOrFail('oracle', {
  options: {
    backend: { type: 'string', default: 'cpu' },
    devices: { type: 'string', default: '0' },
    tokens: { type: 'string' },
    fixture: { type: 'string', default: 'fixtures/tiny-moe' },
    report: { type: 'string', default: 'reports' },
    only: { type: 'string' },
    lib: { type: 'string' },
  },
  strict: true,
});

const backend = values.backend ?? 'cpu';
if (!['cpu', 'cuda', 'vulkan'].includes(backend)) fail(`--backend must be cpu, cuda or vulkan, got '${backend}'`);
const devicesArg = values.devices ?? '0';
// each id an integer the C ABI's int holds; an empty one ('', '0,') would read as device 0
const devices = devicesArg.split(',').map((d) => intOption('oracle', d, 'devices', 0, 0x7fffffff, 0));
const validation = validationOf(backend);
const reportDir = values.report ?? 'reports';
prepareOutputDir('oracle', 'report', reportDir);

let model: LoadedModel;
try {
  model = loadModel(values.fixture ?? 'fixtures/tiny-moe');
} catch (e) {
  fail(e instanceof FixtureError ? e.message : `cannot load fixture: ${(e as Error).message}`);
}
const available = model.manifest.reference.tokens.length;
// by default every reference token, up to 64
const tokens = intOption('oracle', values.tokens, 'tokens', 1, available, Math.min(64, available));

let lib: NativeEngineLib;
try {
  lib = new NativeEngineLib(values.lib ?? libraryPath(backend));
} catch (e) {
  fail(e instanceof NativeError ? e.message : String(e));
}
if (lib.backend !== backend) fail(`${lib.path} is the ${lib.backend} engine, not ${backend}`);
// the devices, the driver and the backend's environment are judged once, up front
const probe = lib.createEngine(devices, 0);
if (probe.status.code !== 0)
  fail(`cannot create a ${backend} engine on devices [${devices.join(',')}]: ${probe.status.message}`);
const destroyed = lib.destroy(probe.engine);
if (destroyed.code !== 0)
  fail(`the ${backend} engine on devices [${devices.join(',')}] fails to shut down: ${destroyed.message}`);

const perDevice = Math.ceil((model.shape.layers * model.shape.experts) / devices.length);
// the CPU-only run always comes first: every other run's hidden states are compared with it
const [cpuOnly, ...rest] = oracleMatrix(devices.length, perDevice, {
  experts: model.shape.experts,
  int8Trunk: model.shape.trunkFormat === 1,
});
const chosen = rest.filter((s) => values.only === undefined || s.name.includes(values.only));
if (chosen.length === 0)
  fail(`--only '${values.only ?? ''}' matches no run; the runs: ${rest.map((s) => s.name).join('; ')}`);
const specs = [...(cpuOnly !== undefined ? [cpuOnly] : []), ...chosen];

const progress = new Progress();
const heatDir = newHeatDir();
const rows: OracleRow[] = [];
/** messages the validation layer reported; null where none was loaded */
const validationMessages = (): number | null => (validation === 'off' ? null : lib.validationCount());
const report = (interrupted: string | null): boolean => {
  const messages = validationMessages();
  const ok = interrupted === null && rows.every((r) => r.pass) && (messages === null || messages === 0);
  const fixture = values.fixture ?? '';
  writeOracleReport(reportDir, {
    backend,
    devices,
    tokens,
    fixture,
    library: lib.path,
    rows,
    validation,
    validationMessages: messages,
    ok,
    planned: specs.length,
    interrupted,
  });
  return ok;
};
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    removeHeatDir(heatDir);
    report(signal);
    progress.done(
      `oracle: interrupted by ${signal} after ${rows.length} of ${specs.length} runs; partial report in ${shownPath(`${reportDir}/oracle-${backend}.md`)}`,
    );
    process.exit(code);
  });
}

const ctx = { lib, model: engineModelOf(model), devices, tokens, heatDir };
const reference = model.manifest.reference.tokens.slice(0, tokens);
/** prompt positions plus generated tokens: one hidden state each */
const steps = model.manifest.prompt.length + tokens - 1;
let baseline: Float32Array[] | null = null;
try {
  for (const [i, spec] of specs.entries()) {
    progress.update(`[${i + 1}/${specs.length}] ${spec.name}`);
    const r = await runOracle(ctx, spec);
    if (i === 0) baseline = r.hidden;
    const matched = r.generated.filter((t, j) => t === reference[j]).length;
    // a run that stopped early diverges where its tokens end
    const differs = r.generated.findIndex((t, j) => t !== reference[j]);
    const first = differs >= 0 ? differs : r.generated.length < tokens ? r.generated.length : -1;
    // every step's hidden state, present and equal: two empty lists are not identical
    const identical = baseline !== null && baseline.length === steps && sameBits(baseline, r.hidden);
    const row: OracleRow = {
      result: r,
      matched,
      firstDivergence: first,
      hiddenIdentical: identical,
      pass: r.ok && matched === tokens && identical,
    };
    rows.push(row);
    progress.done(
      `${row.pass ? 'ok  ' : 'FAIL'} ${spec.name.padEnd(34)} ${matched}/${tokens} tokens, hidden ${identical ? 'bit-identical' : 'DIFFERENT'}, ` +
        `resident ${r.residentAtEnd}, hit ${pct(r.hits, r.hits + r.misses)}, uploads ${r.uploads}, swaps ${r.swaps}, ${r.tokPerSec.toFixed(0)} tok/s` +
        (r.trunkOnDevice + r.trunkOnCpu > 0
          ? `, trunk ${r.trunkResident}/${r.trunkOffered} resident (${pct(r.trunkOnDevice, r.trunkOnDevice + r.trunkOnCpu)} of GEMVs)`
          : '') +
        (r.lru !== null ? `, RAM LRU ${pct(r.lru.hits, r.lru.hits + r.lru.misses)}` : '') +
        ((spec.copyDelayUs ?? 0) > 0 && r.groups !== null
          ? `, groups met uploads ${r.groups.metUploads}/${r.groups.issued}`
          : '') +
        (r.problem !== null ? `\n     ${r.problem}` : ''),
    );
  }
} finally {
  removeHeatDir(heatDir);
}

const ok = report(null);
process.stderr.write(`${htmlReportLine(await writeHtmlReport(reportDir, { onProgress: progressTo('oracle') }))}\n`);
const messages = validationMessages();
const validated =
  validation === null
    ? ''
    : validation === 'off'
      ? ', validation: off'
      : `, validation (${validation}): ${messages ?? 0} messages`;
process.stdout.write(
  `\n${ok ? 'PASS' : 'FAIL'}: ${rows.filter((r) => r.pass).length}/${rows.length} runs token-exact and bit-identical on ${backend} [${devices.join(',')}]` +
    `${validated}; report in ${shownPath(`${reportDir}/oracle-${backend}.md`)}\n`,
);
process.exit(ok ? EXIT.ok : EXIT.safety);

/** Vulkan's validation layer as TIERLAB_VK_VALIDATION asks for it; null for other backends. */
function validationOf(b: string): Validation | null {
  if (b !== 'vulkan') return null;
  const v = process.env.TIERLAB_VK_VALIDATION ?? '';
  if (v === '' || v === '0') return 'off';
  // synchronization validation is asked for by TIERLAB_VK_VALIDATION=sync or in the layer's
  // own environment (native/vulkan/vulkan.mk sets both)
  const layerSync =
    /SYNCHRONIZATION_VALIDATION/.test(process.env.VK_LAYER_ENABLES ?? '') ||
    process.env.VK_KHRONOS_VALIDATION_VALIDATE_SYNC === '1';
  if (v === 'sync' || (v === '1' && layerSync)) return 'sync';
  if (v === '1') return 'core';
  return fail(
    `TIERLAB_VK_VALIDATION=${v}: want 1 (the validation layer), sync (with synchronization validation), or 0 or unset (off)`,
  );
}

function sameBits(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return (
      y !== undefined &&
      Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))
    );
  });
}

function pct(a: number, b: number): string {
  return b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`;
}
