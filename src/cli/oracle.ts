/**
 * `npm run oracle -- --backend cpu|cuda|vulkan [--devices 0,1] [--tokens N]
 *                    [--fixture DIR] [--report DIR] [--only TEXT]`
 *
 * Token-exact oracle runs of the tiny MoE model on the native engine, driven by the
 * same tier the simulator checks. Every run must reproduce the fixture's reference
 * tokens (from the independent float64 reference) and the CPU-only run's hidden states
 * bit for bit. Writes reports/oracle-<backend>.json and .md; exits 1 on any mismatch or
 * violation, 2 on bad input (arguments, library, fixture).
 */
import { libraryPath, NativeEngineLib, NativeError } from '../engine/native/binding.js';
import { FixtureError, loadModel } from '../fixture/container.js';
import { engineModelOf } from '../fixture/engine_model.js';
import { oracleMatrix } from '../oracle/oracle_matrix.js';
import { writeOracleReport, type OracleRow } from '../oracle/oracle_report.js';
import { htmlReportLine, writeHtmlReport } from '../report/write_report.js';
import { newHeatDir, removeHeatDir, runOracle } from '../oracle/oracle_run.js';
import { Progress } from './progress.js';
import { parseOrFail, usageError } from './cli_args.js';

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('oracle', message);
}

const { values } = parseOrFail('oracle', {
  options: {
    backend: { type: 'string', default: 'cpu' },
    devices: { type: 'string', default: '0' },
    tokens: { type: 'string', default: '64' },
    fixture: { type: 'string', default: 'fixtures/tiny-moe' },
    report: { type: 'string', default: 'reports' },
    only: { type: 'string' },
    lib: { type: 'string' },
  },
  strict: true,
});

const backend = values.backend ?? 'cpu';
if (!['cpu', 'cuda', 'vulkan'].includes(backend)) fail(`--backend must be cpu, cuda or vulkan, got '${backend}'`);
const devices = (values.devices ?? '0').split(',').map((d) => Number(d));
if (devices.some((d) => !Number.isInteger(d) || d < 0) || devices.length === 0) fail(`--devices wants ids like 0,1, got '${values.devices}'`);

let model;
try {
  model = loadModel(values.fixture ?? 'fixtures/tiny-moe');
} catch (e) {
  fail(e instanceof FixtureError ? e.message : `cannot load fixture: ${(e as Error).message}`);
}
const tokens = Number(values.tokens);
const available = model.manifest.reference.tokens.length;
if (!Number.isInteger(tokens) || tokens < 1 || tokens > available) fail(`--tokens must be 1..${available} (the fixture's reference length), got '${values.tokens}'`);

let lib: NativeEngineLib;
try {
  lib = new NativeEngineLib(values.lib ?? libraryPath(backend));
} catch (e) {
  fail(e instanceof NativeError ? e.message : String(e));
}
if (lib.backend !== backend) fail(`${lib.path} is the ${lib.backend} engine, not ${backend}`);

const progress = new Progress();
const heatDir = newHeatDir();
const ctx = { lib, model: engineModelOf(model), devices, tokens, heatDir };
const perDevice = Math.ceil((model.shape.layers * model.shape.experts) / devices.length);
// the CPU-only run always comes first: every other run's hidden states are compared with it
const [cpuOnly, ...rest] = oracleMatrix(devices.length, perDevice, { experts: model.shape.experts, int8Trunk: model.shape.trunkFormat === 1 });
const specs = [...(cpuOnly !== undefined ? [cpuOnly] : []), ...rest.filter((s) => values.only === undefined || s.name.includes(values.only))];
const rows: OracleRow[] = [];
const reference = model.manifest.reference.tokens.slice(0, tokens);
let baseline: Float32Array[] | null = null;
try {
  for (const [i, spec] of specs.entries()) {
    progress.update(`[${i + 1}/${specs.length}] ${spec.name}`);
    const r = await runOracle(ctx, spec);
    if (i === 0) baseline = r.hidden;
    const matched = r.generated.filter((t, j) => t === reference[j]).length;
    const first = r.generated.findIndex((t, j) => t !== reference[j]);
    const identical = baseline !== null && sameBits(baseline, r.hidden);
    const row: OracleRow = { result: r, matched, firstDivergence: first, hiddenIdentical: identical, pass: r.ok && matched === tokens && identical };
    rows.push(row);
    progress.done(
      `${row.pass ? 'ok  ' : 'FAIL'} ${spec.name.padEnd(34)} ${matched}/${tokens} tokens, hidden ${identical ? 'bit-identical' : 'DIFFERENT'}, ` +
        `resident ${r.residentAtEnd}, hit ${pct(r.hits, r.hits + r.misses)}, uploads ${r.uploads}, swaps ${r.swaps}, ${r.tokPerSec.toFixed(0)} tok/s` +
        (r.trunkOnDevice + r.trunkOnCpu > 0 ? `, trunk ${r.trunkResident}/${r.trunkOffered} resident (${pct(r.trunkOnDevice, r.trunkOnDevice + r.trunkOnCpu)} of GEMVs)` : '') +
        (r.lru !== null ? `, RAM LRU ${pct(r.lru.hits, r.lru.hits + r.lru.misses)}` : '') +
        (r.problem !== null ? `\n     ${r.problem}` : ''),
    );
  }
} finally {
  removeHeatDir(heatDir);
}

const validation = lib.validationCount();
const ok = rows.every((r) => r.pass) && (validation === null || validation === 0);
writeOracleReport(values.report ?? 'reports', { backend, devices, tokens, fixture: values.fixture ?? '', library: lib.path, rows, validationMessages: validation, ok });
process.stderr.write(`${htmlReportLine(await writeHtmlReport(values.report ?? 'reports'))}\n`);
process.stdout.write(`\n${ok ? 'PASS' : 'FAIL'}: ${rows.filter((r) => r.pass).length}/${rows.length} runs token-exact and bit-identical on ${backend} [${devices.join(',')}]` +
  (validation !== null ? `, ${validation} validation messages` : '') + `; report in ${values.report}/oracle-${backend}.md\n`);
process.exit(ok ? 0 : 1);

function sameBits(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return y !== undefined && Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  });
}

function pct(a: number, b: number): string {
  return b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`;
}
