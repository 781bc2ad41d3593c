/**
 * The oracle end to end on the CPU backend with the int8 and wide fixtures: token-exact
 * in the warmstart runs. Nightly (npm run test:nightly): oracle_cli.test.ts runs the tiny
 * and fp8 fixtures in npm test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function oracle(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle.ts', ...args], {
    encoding: 'utf8',
    timeout: 1_800_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-oracle-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('oracle on the CPU backend, the other fixtures', () => {
  it('the int8 and wide fixtures are token-exact too', () => {
    for (const fixture of ['fixtures/tiny-moe-i8', 'fixtures/wide-moe']) {
      const r = oracle([
        '--backend',
        'cpu',
        '--devices',
        '0,1',
        '--tokens',
        '32',
        '--fixture',
        fixture,
        '--report',
        join(tmp, 'r2'),
        '--only',
        'warmstart',
      ]);
      expect(r.code, fixture + r.stdout + r.stderr).toBe(0);
    }
  });
});
