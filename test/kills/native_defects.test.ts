/**
 * `npm run native-defects`: its one-line errors for an unknown defect and for a patch
 * that no longer applies. The kills themselves (a scratch build per defect, the oracle's
 * slow-bus runs) are native_defects.nightly.test.ts's: they take minutes, and a slow bus
 * is a matter of timing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  it('an unknown defect is one line and exit 2', () => {
    const r = nativeDefects(['--defect', 'no-such-defect']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("no native defect 'no-such-defect'");
  });

  it('a patch that no longer applies is one line and exit 2', () => {
    const dir = mkdtempSync(join(tmp, 'defects-'));
    writeFileSync(
      join(dir, 'stale-patch.ts'),
      `export const defect = { id: 'stale-patch', title: 't', history: 'h', backends: ['cpu'], runs: ['slow bus'], caughtBy: 'c',
        patches: [{ file: 'native/cpu/cpu_backend.c', find: 'text that is in no file', replace: 'x' }] };\n`,
    );
    const r = nativeDefects(['--backend', 'cpu', '--defects-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('stale-patch');
  });
});
