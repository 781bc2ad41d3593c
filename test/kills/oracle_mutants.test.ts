/**
 * `npm run oracle-mutants` on one catalogue mutant, narrowed to the run that reaches its
 * situation (a warmstart loader handing the tier null weights), and its one-line errors
 * for an unknown mutant and for a patch that no longer applies.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function oracleMutants(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle_mutants.ts', ...args], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-oracle-mutants-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('oracle-mutants', () => {
  it('the real oracle kills planned-null-keeps-reservation in the failed warmstart load run', () => {
    const report = join(tmp, 'reports');
    const r = oracleMutants([
      '--mutant',
      'planned-null-keeps-reservation',
      '--only',
      'failed warmstart load',
      '--report',
      report,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'oracle-mutants.json'), 'utf8')) as {
      killed: number;
      rows: { id: string; status: string; evidence: string; command: string }[];
    };
    expect(json.killed).toBe(1);
    expect(json.rows[0]).toMatchObject({
      id: 'planned-null-keeps-reservation',
      status: 'killed',
      command: 'npm run oracle-mutants -- --mutant planned-null-keeps-reservation',
    });
    expect(json.rows[0]?.evidence).toMatch(
      /^fault: failed warmstart load \(null weights\): .*(SPEC-ENQUEUE|ACC-BUDGET|POST-)/,
    );
  });

  it('an unknown mutant is one line and exit 2', () => {
    const r = oracleMutants(['--mutant', 'no-such-mutant']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("no catalogue mutant 'no-such-mutant'");
  });

  it('a patch that no longer applies is one line and exit 2', () => {
    const dir = mkdtempSync(join(tmp, 'catalogue-'));
    writeFileSync(
      join(dir, 'stale-patch.ts'),
      `export const mutant = { id: 'stale-patch', title: 't', history: 'h', family: 'f', expectedProperties: ['MEM-RAM'],
        patches: [{ file: 'src/tier/plan.ts', find: 'text that is in no file', replace: 'x' }] };\n`,
    );
    const r = oracleMutants(['--catalogue-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('stale-patch');
  });
});
