/**
 * `npm run replay -- FILE --export-c OUT.c` on the C catalogue: one counterexample of each
 * of its 28 defects in test/ctier/export_cx/ (the level-1 kill where `npm run mutants --
 * --tier c --level 1 --runs 1500` found one, else the level-2 kill) is either exported, compiled with cc and run twice
 * (on the tier with its defect: exit 1 and a failure line naming what went wrong; on the
 * tier as it is: exit 0, PASS), or refused with one line and exit 2. Bounded by the
 * recorded schedules (one run each), never by time. Bad input is a one-line error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import type { Mutant } from '../../mutants/lib/types.js';
import { exportCTest } from '../../apps/export_c/export_c.js';
import { exportRefusal, isDriverDefect } from '../../apps/export_c/export_scope.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { type BaseObjects, buildBase, buildSchedImpl, compileTest, link } from '../../apps/export_c/build.js';
import { type BothRuns, exportAndRun, runBinary } from '../../apps/export_c/run_exported.js';
import { runPool } from '../../mutants/lib/pool.js';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import { runCTier } from '../../model/ctier/run_ctier.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from './build.js';

const CX_DIR = 'test/ctier/export_cx';
/** what each exported test's failure line must say, by the property its counterexample names */
const SAYS: Readonly<Record<string, RegExp>> = {
  'MEM-DEVICE': /^FAIL: the fake backend's ledger: .*(open group|freed)/,
  'MEM-RAM': /^FAIL: the fake backend's ledger: stage of L\d+E\d+ reads a freed RAM copy/,
  'LIVE-DEADLOCK': /^FAIL: deadlock \(LIVE-DEADLOCK\): deadlock at step \d+/,
  'LIVE-SHUTDOWN': /^FAIL: deadlock \(LIVE-SHUTDOWN\): deadlock at step \d+/,
  'POST-FILL-WAIT': /^FAIL: fill_wait returned \(POST-FILL-WAIT\) while an upload/,
  'POST-SHUTDOWN': /^FAIL: leak \(POST-SHUTDOWN\): \d+ device tensors/,
  'SYNC-DISCIPLINE': /^FAIL: misuse of a mutex or condition variable \(SYNC-DISCIPLINE\): .*\(step \d+\)/,
};
let tmp = '';
let base: BaseObjects;
let mutants = new Map<string, Mutant>();
const files = readdirSync(CX_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'tierlab-export-c-'));
  const r = spawnSync('make', ['-s', '-C', 'native', 'sched-header'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`make -C native sched-header failed:\n${r.stderr}`);
  buildHarness();
  base = await buildBase(tmp);
  mutants = new Map((await loadCatalogue(join(REPO_ROOT, 'mutants/ctier'))).map((e) => [e.mutant.id, e.mutant]));
}, 600_000);
afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

function exportable(file: string): boolean {
  const cx = loadCounterexample(join(CX_DIR, file));
  return exportRefusal(cx.property, mutants.get(cx.mutant ?? '') ?? null) === null;
}

/** Exported, built with and without its defect, and run: the two outcomes. */
async function exportAndRunFile(file: string): Promise<BothRuns & { property: string; detail: string }> {
  const cx = loadCounterexample(join(CX_DIR, file));
  const m = mutants.get(cx.mutant ?? '');
  if (m === undefined) throw new Error(`${file}: no mutant`);
  const r = await exportAndRun(tmp, base, file.replace(/\.json$/, ''), cx, m);
  return { ...r, property: cx.property, detail: cx.detail };
}

describe('a C tier counterexample as a standalone C regression test', () => {
  it('exports the tier defects the boundary sees and refuses the rest, each with its reason', () => {
    const verdicts = files.map((f) => `${f.replace(/\.json$/, '')}: ${exportable(f) ? 'exported' : 'refused'}`);
    expect(verdicts).toEqual([
      'abandon-frees-victim-MEM-DEVICE: exported',
      'budget-by-payload-SPEC-INIT: refused',
      'driver-already-as-fresh-start-DRV-WARMSTART: refused',
      'enqueue-after-stop-SPEC-ENQUEUE: refused',
      'evicted-dropped-below-bound-SPEC-EVICTED: refused',
      'evicted-twice-EVICT-ONCE: refused',
      'failed-upload-no-decrement-LIVE-DEADLOCK: exported',
      'fill-wait-queue-empty-POST-FILL-WAIT: exported',
      'fill-wait-with-group-open-DRV-FILL-WAIT: refused',
      'heat-file-counts-unchecked-SPEC-HEAT-FILE: refused',
      'heat-file-trailing-bytes-accepted-SPEC-HEAT-FILE: refused',
      'issue-stride-overrun-MEM-BOUNDS: refused',
      'note-planned-twice-refunds-ACC-BUDGET: refused',
      'null-weights-offered-PROG-FILL: refused',
      'planned-null-keeps-reservation-SPEC-ENQUEUE: refused',
      'reinit-in-teardown-window-SYNC-DISCIPLINE: exported',
      'shutdown-leaks-tensors-POST-SHUTDOWN: exported',
      'shutdown-no-wake-LIVE-SHUTDOWN: exported',
      'streaming-pointer-retained-MEM-RAM: exported',
      'swaps-turned-off-SPEC-ADMISSION: refused',
      'swaps-without-reclaim-VARIANT-FILL-ONCE: refused',
      'sync-waits-on-queue-SPEC-SYNC-MODE: refused',
      'take-failure-drops-experts-COMP-EXACT-ONCE: refused',
      'trunk-not-gated-SPEC-GATE: refused',
      'trunk-worst-value-first-SPEC-INIT: refused',
      'unlocked-on-check-SPEC-GATE: refused',
      'victim-freed-while-group-open-MEM-DEVICE: exported',
      'warmstart-frees-live-copy-MEM-RAM: refused',
    ]);
    // the catalogue's driver defects are refused whatever their property
    const driver = [...mutants.values()].filter(isDriverDefect).map((m) => m.id);
    expect(driver.sort()).toEqual([
      'driver-already-as-fresh-start',
      'fill-wait-with-group-open',
      'null-weights-offered',
      'take-failure-drops-experts',
      'warmstart-frees-live-copy',
    ]);
    for (const id of driver) expect(exportRefusal('MEM-DEVICE', mutants.get(id) ?? null)).toMatch(/engine driver/);
  });

  it('each exported test fails on its defect, naming it, and passes on the tier as it is', async () => {
    const problems: string[] = [];
    for (const f of files.filter(exportable)) {
      const r = await exportAndRunFile(f);
      const failLine = r.defect.verdict;
      if (r.defect.code !== 1 || !(SAYS[r.property] ?? /^$/).test(failLine))
        problems.push(`${f}: with the defect: exit ${r.defect.code}: ${r.defect.out.slice(0, 300)}`);
      // the scheduler's own descriptions carry the step: the same interleaving as the harness's
      const step = /at step (\d+)/.exec(r.detail)?.[1];
      if (step !== undefined && !failLine.includes(`step ${step}`) && !r.defect.out.includes(`step ${step})`))
        problems.push(`${f}: the harness failed at step ${step}, the exported test: ${failLine}`);
      if (r.fixed.code !== 0 || !r.fixed.out.includes('\nPASS'))
        problems.push(`${f}: without the defect: exit ${r.fixed.code}: ${r.fixed.out.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
  }, 600_000);

  it('on the tier as it is, every counterexample scenario runs the schedule the harness runs, and passes', async () => {
    // the driver written again (tx_body.h) against th_driver.c: the same decisions and steps
    // as the harness's run of the same choices, on all 28 scenarios, whatever their export
    const h = new CTierHarness();
    const harness = files.map((f) => {
      const cx = loadCounterexample(join(CX_DIR, f));
      const r = runCTier(h, harnessScenario(cx.scenario), {
        level: 1,
        strategy: { kind: 'choices', choices: cx.choices },
      });
      return `${f}: ${r.decisions} decisions, ${r.steps} steps, ${r.violation === null ? 'PASS' : r.violation.property}`;
    });
    h.close();
    const schedImpl = await buildSchedImpl(tmp);
    const exported = await runPool(files, 2, async (f) => {
      const name = `tier-${f.replace(/\.json$/, '')}`;
      const source = join(tmp, `${name}.c`);
      writeFileSync(source, exportCTest(name, loadCounterexample(join(CX_DIR, f))));
      const bin = await link(
        await compileTest(source, schedImpl),
        [...base.tier.values(), ...base.fake],
        join(tmp, name),
      );
      const r = await runBinary(bin, tmp);
      const counts = /: (\d+ decisions, \d+ steps),/.exec(r.out)?.[1] ?? r.out.slice(0, 200);
      return `${f}: ${counts}, ${r.code === 0 ? r.verdict : `exit ${r.code} ${r.verdict}`}`;
    });
    expect(exported).toEqual(harness);
  }, 600_000);

  it('writes the same text for the same file, byte for byte', () => {
    const cx = loadCounterexample(join(CX_DIR, 'shutdown-no-wake-LIVE-SHUTDOWN.json'));
    expect(exportCTest('t', cx)).toBe(exportCTest('t', cx));
  });
});

describe('npm run replay -- FILE --export-c OUT.c, on bad input', () => {
  const cli = (file: string, out: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/replay.ts', file, '--export-c', out], {
      encoding: 'utf8',
      timeout: 120_000,
    });
  const cases: readonly (readonly [string, () => string, RegExp])[] = [
    [
      'not a C tier counterexample',
      () => 'properties/replays/dense-gemv-after-shutdown.json',
      /not a C tier counterexample/,
    ],
    ['a malformed file', () => written('bad.json', '{"format": "tierlab-counterexample", '), /bad\.json/],
    ['an unknown defect', () => withMutant('no-such-defect'), /unknown defect 'no-such-defect'/],
    [
      'a failure only the reference sees',
      () => join(CX_DIR, 'budget-by-payload-SPEC-INIT.json'),
      /SPEC-INIT is judged by/,
    ],
    ['a defect of the engine driver', () => join(CX_DIR, 'null-weights-offered-PROG-FILL.json'), /engine driver/],
  ];
  for (const [name, file, says] of cases) {
    it(name, () => {
      const out = join(tmp, 'never.c');
      const r = cli(file(), out);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(says);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('a good file: one line saying what it wrote', () => {
    const out = join(tmp, 'shutdown_no_wake.c');
    const r = cli(join(CX_DIR, 'shutdown-no-wake-LIVE-SHUTDOWN.json'), out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^wrote .*shutdown_no_wake\.c \(\d+ lines\): LIVE-SHUTDOWN on shutdown-no-wake, 51 scheduler choices/,
    );
  });
});

function written(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

function withMutant(id: string): string {
  const cx = loadCounterexample(join(CX_DIR, 'shutdown-no-wake-LIVE-SHUTDOWN.json'));
  return written('unknown.json', JSON.stringify({ ...cx, mutant: id }));
}
