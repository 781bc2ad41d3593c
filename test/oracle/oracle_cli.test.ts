/**
 * The oracle end to end on the CPU backend (what CI runs), and the one-line errors for a
 * missing library, a wrong-ABI library, a library that is not tierlab's, and a malformed
 * fixture.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function oracle(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/oracle.ts', ...args], { encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-oracle-test-'));

function sharedLib(name: string, source: string): string {
  const c = join(tmp, `${name}.c`);
  const so = join(tmp, `lib${name}.so`);
  writeFileSync(c, source);
  execFileSync('cc', ['-shared', '-fPIC', '-o', so, c]);
  return so;
}

describe('oracle on the CPU backend', () => {
  it('every run is token-exact and bit-identical on two simulated devices', () => {
    const report = join(tmp, 'reports');
    const r = oracle(['--backend', 'cpu', '--devices', '0,1', '--tokens', '64', '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'oracle-cpu.json'), 'utf8')) as { ok: boolean; runs: { pass: boolean; tokensMatched: number }[] };
    expect(json.ok).toBe(true);
    expect(json.runs.length).toBeGreaterThanOrEqual(12);
    for (const run of json.runs) expect(run.tokensMatched).toBe(64);
  });

  it('the fp8 fixture (fp8 experts, the int8 trunk): streaming through RAM LRUs and the trunk rows, token-exact', () => {
    const report = join(tmp, 'r-fp8');
    const r = oracle(['--backend', 'cpu', '--devices', '0,1', '--tokens', '32', '--fixture', 'fixtures/tiny-moe-fp8', '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'oracle-cpu.json'), 'utf8')) as { runs: { name: string; tokensMatched: number; hiddenBitIdentical: boolean }[] };
    const names = json.runs.map((run) => run.name);
    for (const row of ['half, streaming, swaps, RAM LRU 1', 'trunk only (no expert resident)', 'trunk and experts', 'trunk, streaming, RAM LRU 2']) expect(names).toContain(row);
    for (const run of json.runs) expect([run.name, run.tokensMatched, run.hiddenBitIdentical]).toEqual([run.name, 32, true]);
  });

  it('the int8 and wide fixtures are token-exact too', () => {
    for (const fixture of ['fixtures/tiny-moe-i8', 'fixtures/wide-moe']) {
      const r = oracle(['--backend', 'cpu', '--devices', '0,1', '--tokens', '32', '--fixture', fixture, '--report', join(tmp, 'r2'), '--only', 'warmstart']);
      expect(r.code, fixture + r.stdout + r.stderr).toBe(0);
    }
  });
});

describe('bad input gets one clear error line', () => {
  it('a missing library', () => {
    const r = oracle(['--lib', join(tmp, 'nope.so')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('native library not found');
  });

  it('a library of another ABI version', () => {
    const so = sharedLib('wrongabi', 'unsigned tl_abi_version(void) { return 99; }\n');
    const r = oracle(['--lib', so]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('ABI mismatch');
  });

  it('a library that is not a tierlab engine', () => {
    const so = sharedLib('other', 'int something_else(void) { return 1; }\n');
    const r = oracle(['--lib', so]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a tierlab engine');
  });

  it('a malformed (truncated) fixture', () => {
    const dir = join(tmp, 'broken');
    mkdirSync(dir, { recursive: true });
    copyFileSync('fixtures/tiny-moe/manifest.json', join(dir, 'manifest.json'));
    copyFileSync('fixtures/tiny-moe/weights.bin', join(dir, 'weights.bin'));
    truncateSync(join(dir, 'weights.bin'), Math.floor(statSync(join(dir, 'weights.bin')).size / 2));
    const r = oracle(['--fixture', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('weights.bin');
  });
});
