/**
 * `npm run native-defects` on one defect of the CPU backend (the control, the patched
 * scratch build, the oracle run that catches it, the kill table), and a defect that
 * changes nothing surviving with what its runs reached. Nightly (npm run test:nightly):
 * each builds the library in a scratch copy and runs the oracle's slow-bus matrix, which
 * takes minutes and whose kill rests on the timing of uploads in flight.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function nativeDefects(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/native_defects.ts', ...args], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-native-defects-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('native-defects', () => {
  it('kills upload-done-early on the CPU backend and writes the kill table', () => {
    const report = join(tmp, 'reports');
    const r = nativeDefects(['--backend', 'cpu', '--defect', 'upload-done-early', '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'native-defects.json'), 'utf8')) as {
      killed: number;
      total: number;
      rows: { id: string; backend: string; status: string; evidence: string; command: string }[];
    };
    expect(json).toMatchObject({ killed: 1, total: 1 });
    const row = json.rows[0];
    expect(row).toMatchObject({ id: 'upload-done-early', backend: 'cpu', status: 'killed' });
    // caught by the oracle itself: tokens off the reference or hidden states off the CPU-only run
    expect(row?.evidence).toMatch(/slow bus.*(tokens|hidden states differ)/);
    expect(row?.command).toBe('npm run native-defects -- --backend cpu --defect upload-done-early');
    expect(readFileSync(join(report, 'native-defects.md'), 'utf8')).toContain('| upload-done-early | cpu | killed |');
  });

  it('a defect that changes nothing survives, and its row says what its runs reached', () => {
    const dir = mkdtempSync(join(tmp, 'defects-'));
    // a comment changed: the library behaves as the control does, so the slow bus cannot kill it
    writeFileSync(
      join(dir, 'no-op.ts'),
      `export const defect = { id: 'no-op', title: 't', history: 'h', backends: ['cpu'], runs: ['slow bus'], caughtBy: 'c',
        patches: [{ file: 'native/cpu/cpu_copy.c', find: ' * The CPU backend', replace: ' * The CPU backend (a no-op change)' }] };\n`,
    );
    const report = join(tmp, 'no-op');
    const r = nativeDefects(['--backend', 'cpu', '--defects-dir', dir, '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const md = readFileSync(join(report, 'native-defects.md'), 'utf8');
    expect(md).toMatch(
      /\| no-op \| cpu \| \*\*survived\*\* \| no reason given \(the runs reached: slow bus[^:]*: \d+\/\d+ groups met a tensor still uploading[;)]/,
    );
  });
});
