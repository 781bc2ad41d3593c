/**
 * `npm run oracle -- --backend cpu|cuda|vulkan [--devices 0,1] [--tokens N]
 *                    [--fixture DIR] [--report DIR] [--only TEXT] [--lib FILE]
 *                    [--tier ts|c] [--ctier-lib FILE] [--events on|off]`
 *
 * Token-exact oracle runs of the tiny MoE model on the native engine, driven by the
 * same tier the simulator checks. Every run must reproduce the fixture's reference
 * tokens (from the independent float64 reference) and the CPU-only run's hidden states
 * bit for bit. Writes reports/oracle-<backend>.json and .md; exits 1 on any mismatch or
 * violation, 2 on bad input (arguments, environment, library, fixture, or devices the
 * engine cannot be created on: one engine is created before the matrix, so a missing
 * GPU or driver is one line, not fifteen failed runs). SIGINT, SIGTERM or SIGHUP, once
 * or more, writes the report of the runs finished (marked interrupted), removes the
 * heat-file directory (a scratch folder of src/input/cleanup.ts) and exits 130, 143 or 129.
 * `--tier c` runs the same matrix with the C tier (native/tier/, its engine library
 * libtierlab_ctier_<backend>.so beside the engine's, or --ctier-lib) inside the engine:
 * reports/oracle-<backend>-ctier.json and .md, each row's event log (NDJSON, EVENTS.md) in
 * reports/oracle-<backend>-ctier-events/ (`--events off`: none; the arranged rows' probes
 * still read a log of their own), and the rows its driver cannot express listed by name
 * with the reason (apps/oracle/ctier_run.ts).
 */
import { EXIT, type ExitCode } from '../../src/check/exit_codes.js';
import { onInterrupt } from '../../src/input/cleanup.js';
import { NativeEngineLib, NativeError } from '../../src/engine/native/binding.js';
import { libraryPath, NATIVE_BACKENDS, type NativeBackend } from '../../src/engine/native/library_file.js';
import { FixtureError, loadModel } from '../../src/fixture/container.js';
import { engineModelOf } from '../../src/fixture/engine_model.js';
import type { LoadedModel } from '../../src/fixture/model_types.js';
import { oracleMatrix } from '../oracle/oracle_matrix.js';
import { writeOracleReport, type OracleRow, type SkippedRow, type Validation } from '../oracle/oracle_report.js';
import {
  newHeatDir,
  removeHeatDir,
  runOracle,
  type OracleContext,
  type OracleRunResult,
  type OracleRunSpec,
} from '../oracle/oracle_run.js';
import { ctierSkipReason, runCTierOracle } from '../oracle/ctier_run.js';
import { eventsFolder, openCTier, reportName, type OracleTier } from '../oracle/ctier_setup.js';
import type { CTierLib } from '../../src/engine/native/ctier_binding.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { intOption, isOneOf, parseOrFail, sharedOptions, usageError, wordList } from './cli_args.js';
import { preferCheck, sameBits } from '../oracle/oracle_prefer.js';
import { prepareOutputDir, shownPath } from './output_dir.js';
import { Progress } from './progress.js';

// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('oracle', message);
}

/** What a run of the matrix needs, read and checked before the first run. */
interface OracleSetup {
  readonly backend: NativeBackend;
  readonly devices: readonly number[];
  readonly validation: Validation | null;
  readonly reportDir: string;
  readonly fixture: string;
  readonly only: string | undefined;
  readonly model: LoadedModel;
  readonly tokens: number;
  readonly lib: NativeEngineLib;
  readonly tier: OracleTier;
  /** the C tier library (--tier c), else null */
  readonly ctier: CTierLib | null;
  /** the C tier's rows write their event logs beside the report */
  readonly events: boolean;
}

function readOptions(argv: readonly string[]): OracleSetup {
  const { values } = parseOrFail('oracle', argv, {
    options: {
      ...sharedOptions('backend', 'devices', 'tokens', 'fixture', 'report', 'only', 'lib'),
      tier: { type: 'string' },
      'ctier-lib': { type: 'string' },
      events: { type: 'string' },
    },
    strict: true,
  });
  const backend = values.backend ?? 'cpu';
  if (!isOneOf(NATIVE_BACKENDS, backend)) fail(`--backend must be ${wordList(NATIVE_BACKENDS)}, got '${backend}'`);
  // each id an integer the C ABI's int holds; an empty one ('', '0,') would read as device 0
  const devices = (values.devices ?? '0').split(',').map((d) => intOption('oracle', d, 'devices', 0, 0x7fffffff, 0));
  const validation = validationOf(backend);
  const reportDir = values.report ?? 'reports';
  prepareOutputDir('oracle', 'report', reportDir);
  const fixture = values.fixture ?? 'fixtures/tiny-moe';
  let model: LoadedModel;
  try {
    model = loadModel(fixture);
  } catch (e) {
    fail(e instanceof FixtureError ? e.message : `cannot load fixture: ${(e as Error).message}`);
  }
  const available = model.manifest.reference.tokens.length;
  // by default every reference token, up to 64
  const tokens = intOption('oracle', values.tokens, 'tokens', 1, available, Math.min(64, available));
  const tier = values.tier ?? 'ts';
  if (tier !== 'ts' && tier !== 'c') fail(`--tier must be ts or c, got '${tier}'`);
  if (tier === 'ts' && values['ctier-lib'] !== undefined) fail('--ctier-lib needs --tier c');
  const events = values.events ?? 'on';
  if (events !== 'on' && events !== 'off') fail(`--events must be on or off, got '${events}'`);
  if (tier === 'ts' && values.events !== undefined) fail('--events needs --tier c (the C tier writes the event log)');
  const lib = openEngine(backend, devices, values.lib);
  const ctier = tier === 'c' ? openCTier(backend, lib.path, values['ctier-lib'], fail) : null;
  const setup = { backend, devices, validation, reportDir, fixture, only: values.only, model, tokens, lib };
  return { ...setup, tier, ctier, events: events === 'on' };
}

/** The library, checked to be the backend asked for, and one engine made and shut down on the devices. */
function openEngine(backend: NativeBackend, devices: readonly number[], file: string | undefined): NativeEngineLib {
  let lib: NativeEngineLib;
  try {
    lib = new NativeEngineLib(file ?? libraryPath(backend));
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
  return lib;
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = readOptions(argv);
  const { model, devices, lib, backend } = o;
  const perDevice = Math.ceil((model.shape.layers * model.shape.experts) / devices.length);
  // the CPU-only run always comes first: every other run's hidden states are compared with it
  const [cpuOnly, ...rest] = oracleMatrix(devices.length, perDevice, {
    experts: model.shape.experts,
    int8Trunk: model.shape.trunkFormat === 1,
  });
  const chosen = rest.filter((s) => o.only === undefined || s.name.includes(o.only));
  if (chosen.length === 0)
    fail(`--only '${o.only ?? ''}' matches no run; the runs: ${rest.map((s) => s.name).join('; ')}`);
  const all = [...(cpuOnly !== undefined ? [cpuOnly] : []), ...chosen];
  // the C tier's driver leaves out the rows it cannot express: by name, with the reason
  const skipped = o.tier === 'c' ? skippedRows(all) : [];
  const specs = all.filter((s) => !skipped.some((k) => k.name === s.name));
  const progress = new Progress();
  const heatDir = newHeatDir();
  const rows: OracleRow[] = [];
  const report = (interrupted: string | null): boolean => writeReport(o, rows, specs.length, interrupted, skipped);
  const removeHandlers = onInterrupt((signal) => {
    report(signal);
    const partial = shownPath(`${o.reportDir}/${reportName(backend, o.tier)}.md`);
    progress.done(
      `oracle: interrupted by ${signal} after ${rows.length} of ${specs.length} runs; partial report in ${partial}`,
    );
  });
  try {
    const run = runnerOf(o, { lib, model: engineModelOf(model), devices, tokens: o.tokens, heatDir }, specs);
    try {
      for (const skip of skipped) progress.done(`skip ${skip.name}: ${skip.reason}`);
      for (const [i, spec] of specs.entries()) {
        progress.update(`[${i + 1}/${specs.length}] ${spec.name}`);
        const row = await runRow(run, spec, rows[0]?.result.hidden ?? null, o);
        rows.push(row);
        progress.done(rowLine(row, o.tokens));
      }
    } finally {
      removeHeatDir(heatDir);
    }
    const ok = report(null);
    process.stderr.write(
      `${htmlReportLine(await writeHtmlReport(o.reportDir, { onProgress: progressTo('oracle') }))}\n`,
    );
    process.stdout.write(verdictLine(o, rows, ok));
    return ok ? EXIT.ok : EXIT.safety;
  } finally {
    removeHandlers();
  }
}

/** The rows the C tier's driver cannot express, each with the reason. */
function skippedRows(specs: readonly OracleRunSpec[]): SkippedRow[] {
  return specs.flatMap((s) => {
    const reason = ctierSkipReason(s);
    return reason === null ? [] : [{ name: s.name, reason }];
  });
}

/** One run of a row with the tier asked for: the TypeScript tier, or the C tier (its
 *  event log beside the report). */
function runnerOf(
  o: OracleSetup,
  ctx: OracleContext,
  specs: readonly OracleRunSpec[],
): (spec: OracleRunSpec) => Promise<OracleRunResult> {
  const ctier = o.ctier;
  if (ctier === null) return (spec) => runOracle(ctx, spec);
  const eventsPath = o.events ? eventsFolder(o.reportDir, reportName(o.backend, o.tier), specs).path : null;
  return (spec) => Promise.resolve(runCTierOracle({ ...ctx, ctier, eventsPath }, spec));
}

/** messages the validation layer reported; null where none was loaded */
function validationMessages(o: OracleSetup): number | null {
  return o.validation === 'off' ? null : o.lib.validationCount();
}

/** Writes the report of the runs so far; whether the run passes. */
function writeReport(
  o: OracleSetup,
  rows: readonly OracleRow[],
  planned: number,
  interrupted: string | null,
  skipped: readonly SkippedRow[],
): boolean {
  const messages = validationMessages(o);
  const ok = interrupted === null && rows.every((r) => r.pass) && (messages === null || messages === 0);
  writeOracleReport(o.reportDir, {
    backend: o.backend,
    devices: o.devices,
    tokens: o.tokens,
    fixture: o.fixture,
    library: o.ctier === null ? o.lib.path : `${o.lib.path}, C tier ${o.ctier.path}`,
    rows,
    validation: o.validation,
    validationMessages: messages,
    ok,
    planned,
    interrupted,
    tier: o.tier,
    skipped,
  });
  return ok;
}

/** One run of the matrix, judged: tokens against the reference, hidden states against the CPU-only run's. */
async function runRow(
  run: (spec: OracleRunSpec) => Promise<OracleRunResult>,
  spec: OracleRunSpec,
  cpuOnlyHidden: Float32Array[] | null,
  o: OracleSetup,
): Promise<OracleRow> {
  /** prompt positions plus generated tokens: one hidden state each */
  const steps = o.model.manifest.prompt.length + o.tokens - 1;
  const r = await run(spec);
  // prefer-resident routing: the reference given the run's routing, bits against the same routing rerun
  const prefer = spec.prefer !== undefined ? await preferCheck(run, o.model, spec, r, o.tokens) : null;
  const reference = prefer?.reference ?? o.model.manifest.reference.tokens.slice(0, o.tokens);
  const baseline = cpuOnlyHidden ?? r.hidden;
  const matched = r.generated.filter((t, j) => t === reference[j]).length;
  // a run that stopped early diverges where its tokens end
  const differs = r.generated.findIndex((t, j) => t !== reference[j]);
  const first = differs >= 0 ? differs : r.generated.length < o.tokens ? r.generated.length : -1;
  // every step's hidden state, present and equal: two empty lists are not identical
  const identical =
    prefer !== null
      ? prefer.identical && r.hidden.length === steps
      : baseline.length === steps && sameBits(baseline, r.hidden);
  if (prefer !== null && prefer.problem !== null) r.notes.push(prefer.problem);
  return {
    result: r,
    matched,
    firstDivergence: first,
    hiddenIdentical: identical,
    pass: r.ok && matched === o.tokens && identical,
  };
}

function rowLine(row: OracleRow, tokens: number): string {
  const r = row.result;
  const spec = r.spec;
  return (
    `${row.pass ? 'ok  ' : 'FAIL'} ${spec.name.padEnd(34)} ${row.matched}/${tokens} tokens, hidden ${row.hiddenIdentical ? 'bit-identical' : 'DIFFERENT'}, ` +
    `resident ${r.residentAtEnd}, hit ${pct(r.hits, r.hits + r.misses)}, uploads ${r.uploads}, swaps ${r.swaps}, ${r.tokPerSec.toFixed(0)} tok/s` +
    (r.trunkOnDevice + r.trunkOnCpu > 0
      ? `, trunk ${r.trunkResident}/${r.trunkOffered} resident (${pct(r.trunkOnDevice, r.trunkOnDevice + r.trunkOnCpu)} of GEMVs)`
      : '') +
    (r.lru !== null ? `, RAM LRU ${pct(r.lru.hits, r.lru.hits + r.lru.misses)}` : '') +
    ((spec.copyDelayUs ?? 0) > 0 && r.groups !== null
      ? `, groups met uploads ${r.groups.metUploads}/${r.groups.issued}`
      : '') +
    (r.problem !== null ? `\n     ${r.problem}` : '')
  );
}

function verdictLine(o: OracleSetup, rows: readonly OracleRow[], ok: boolean): string {
  const messages = validationMessages(o);
  const validated =
    o.validation === null
      ? ''
      : o.validation === 'off'
        ? ', validation: off'
        : `, validation (${o.validation}): ${messages ?? 0} messages`;
  return (
    `\n${ok ? 'PASS' : 'FAIL'}: ${rows.filter((r) => r.pass).length}/${rows.length} runs token-exact and bit-identical on ${o.backend} [${o.devices.join(',')}]` +
    `${validated}; report in ${shownPath(`${o.reportDir}/${reportName(o.backend, o.tier)}.md`)}\n`
  );
}

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

function pct(a: number, b: number): string {
  return b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`;
}
