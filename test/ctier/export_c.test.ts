/**
 * `npm run replay -- FILE --export-c OUT.c` on the C catalogue: every counterexample of
 * test/ctier/export_cx/ (the level-1 kills of `npm run mutants -- --tier c --level 1`, and
 * a level-2 kill of a decision defect) is either exported, compiled with cc and run twice
 * (on the tier with its defect: exit 1 and a failure line naming what went wrong; on the
 * tier as it is: exit 0, PASS), or refused with one line and exit 2. Bounded by the
 * recorded schedules (one run each), never by time. Bad input is a one-line error.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import type { Mutant } from '../../mutants/lib/types.js';
import { exportCTest } from '../../apps/export_c/export_c.js';
import { exportRefusal, isDriverDefect } from '../../apps/export_c/export_scope.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { buildBase, buildDefect, compileTest, link, type BaseObjects } from './export_build.js';

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
const exec = promisify(execFile);

interface Ran {
  readonly code: number;
  readonly out: string;
}

async function runBinary(path: string): Promise<Ran> {
  try {
    const r = await exec(path, [], { cwd: tmp, timeout: 120_000 });
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: err.stdout ?? '' };
  }
}

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
async function exportAndRun(file: string): Promise<{ defect: Ran; fixed: Ran; property: string; detail: string }> {
  const cx = loadCounterexample(join(CX_DIR, file));
  const m = mutants.get(cx.mutant ?? '');
  if (m === undefined) throw new Error(`${file}: no mutant`);
  const name = file.replace(/\.json$/, '');
  const source = join(tmp, `${name}.c`);
  writeFileSync(source, exportCTest(name, cx));
  const obj = await compileTest(source);
  const withDefect = await link(obj, await buildDefect(tmp, base, m), join(tmp, `${name}.defect`));
  const without = await link(obj, [...base.tier.values(), ...base.fake], join(tmp, `${name}.fixed`));
  return {
    defect: await runBinary(withDefect),
    fixed: await runBinary(without),
    property: cx.property,
    detail: cx.detail,
  };
}

describe('a C tier counterexample as a standalone C regression test', () => {
  it('exports the tier defects the boundary sees and refuses the rest, each with its reason', () => {
    const verdicts = files.map((f) => `${f.replace(/\.json$/, '')}: ${exportable(f) ? 'exported' : 'refused'}`);
    expect(verdicts).toEqual([
      'abandon-frees-victim-MEM-DEVICE: exported',
      'budget-by-payload-SPEC-INIT: refused',
      'driver-already-as-fresh-start-DRV-WARMSTART: refused',
      'failed-upload-no-decrement-LIVE-DEADLOCK: exported',
      'fill-wait-queue-empty-POST-FILL-WAIT: exported',
      'fill-wait-with-group-open-DRV-FILL-WAIT: refused',
      'null-weights-offered-PROG-FILL: refused',
      'reinit-in-teardown-window-SYNC-DISCIPLINE: exported',
      'shutdown-leaks-tensors-POST-SHUTDOWN: exported',
      'shutdown-no-wake-LIVE-SHUTDOWN: exported',
      'streaming-pointer-retained-MEM-RAM: exported',
      'take-failure-drops-experts-COMP-EXACT-ONCE: refused',
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
      const r = await exportAndRun(f);
      const failLine = r.defect.out.split('\n').find((l) => l.startsWith('FAIL: ')) ?? '';
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
