/**
 * The oracle end to end on the CPU backend (what CI runs; the int8 and wide fixtures are
 * oracle_cli.nightly.test.ts's), and the one-line errors for a
 * missing library, a wrong-ABI library, a library that is not tierlab's, a truncated
 * library (it was a SIGBUS), devices the engine cannot be created on (it was fifteen
 * failed runs with "bit-identical" hidden states), a filter that matches no run, a report
 * directory that is a file, and a malformed fixture.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function oracle(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle.ts', ...args], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-oracle-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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
    // 32 tokens: every run of the matrix reaches its situation (swaps, faults, shutdowns) by then
    const r = oracle(['--backend', 'cpu', '--devices', '0,1', '--tokens', '32', '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'oracle-cpu.json'), 'utf8')) as {
      ok: boolean;
      runs: { pass: boolean; tokensMatched: number }[];
    };
    expect(json.ok).toBe(true);
    expect(json.runs.length).toBeGreaterThanOrEqual(12);
    for (const run of json.runs) expect(run.tokensMatched).toBe(32);
  });

  it('the fp8 fixture (fp8 experts, the int8 trunk): streaming through RAM LRUs and the trunk rows, token-exact', () => {
    const report = join(tmp, 'r-fp8');
    const r = oracle([
      '--backend',
      'cpu',
      '--devices',
      '0,1',
      '--tokens',
      '32',
      '--fixture',
      'fixtures/tiny-moe-fp8',
      '--report',
      report,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(report, 'oracle-cpu.json'), 'utf8')) as {
      runs: { name: string; tokensMatched: number; hiddenBitIdentical: boolean }[];
    };
    const names = json.runs.map((run) => run.name);
    for (const row of [
      'half, streaming, swaps, RAM LRU 1',
      'trunk only (no expert resident)',
      'trunk and experts',
      'trunk, streaming, RAM LRU 2',
    ])
      expect(names).toContain(row);
    for (const run of json.runs)
      expect([run.name, run.tokensMatched, run.hiddenBitIdentical]).toEqual([run.name, 32, true]);
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

  // each: the arguments, then the one line on stderr (exit 2)
  const cases: readonly (readonly [string, () => string[], RegExp])[] = [
    [
      'a truncated library',
      () => {
        const so = join(tmp, 'truncated.so');
        copyFileSync('native/build/libtierlab_cpu.so', so);
        truncateSync(so, 20_000);
        return ['--lib', so];
      },
      /^oracle: cannot load .*truncated\.so: its .* ends at byte \d+, past its 20000 bytes \(truncated\?\)$/,
    ],
    [
      'a device named twice',
      () => ['--devices', '0,0'],
      /^oracle: cannot create a cpu engine on devices \[0,0\]: .*device id 0 appears twice/,
    ],
    [
      'more devices than an engine takes',
      () => ['--devices', Array.from({ length: 18 }, (_, i) => i).join(',')],
      /^oracle: cannot create a cpu engine on devices .*: .*ndevices must be in 1\.\.8/,
    ],
    ['an empty device list', () => ['--devices='], /^oracle: --devices wants an integer in \[0, \d+\], got ''$/],
    ['--only matching no run', () => ['--only', 'zzz'], /^oracle: --only 'zzz' matches no run; the runs: /],
    [
      'a report directory that is a file',
      () => ['--report', 'README.md'],
      /^oracle: --report README\.md: .*README\.md is not a directory$/,
    ],
  ];
  for (const [name, args, line] of cases) {
    it(name, () => {
      const r = oracle(args());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(line);
      expect(r.stdout).not.toMatch(/FAIL|bit-identical/);
    });
  }
});
