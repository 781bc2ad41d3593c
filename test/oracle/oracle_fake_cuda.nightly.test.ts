/**
 * The CUDA backend's host code through the TypeScript oracle without a GPU: the library
 * built over the host-only stand-in runtime (native/tests/fake_cuda.c: each stream a
 * thread, kernels the CPU math, memory the host's) runs the whole matrix on two devices,
 * token-exact and bit-identical, and the slow-bus run really meets uploads in flight.
 * Then the CUDA defect that only a slow bus shows, upload-done-early, must be killed
 * there: the H200 has not killed it so far, and this says the patch and the runs can.
 * Needs nvcc's headers (the same condition as the fake-runtime C tests). Nightly (npm run
 * test:nightly): the matrix on two devices takes minutes, and the slow-bus kill rests on
 * the timing of uploads in flight.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_NVCC } from '../native/cuda_toolchain.js';

const LIB = 'native/build/fake_cuda/libtierlab_cuda.so';
const tmp = mkdtempSync(join(tmpdir(), 'tierlab-fake-cuda-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  if (HAS_NVCC) execFileSync('make', ['-s', '-C', 'native', 'cuda-fake-lib'], { stdio: 'inherit' });
});

interface Run {
  name: string;
  pass: boolean;
  tokensMatched: number;
  hiddenBitIdentical: boolean;
  groupsMetUploads: number | null;
}

function tsx(script: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe.runIf(HAS_NVCC)('the CUDA host code on the stand-in runtime, through the oracle', () => {
  it('every run of the matrix on two devices is token-exact and bit-identical; the slow bus meets uploads', () => {
    const report = join(tmp, 'oracle');
    const r = tsx('apps/cli/bin/oracle.ts', [
      '--backend',
      'cuda',
      '--lib',
      LIB,
      '--devices',
      '0,1',
      '--tokens',
      '32',
      '--report',
      report,
    ]);
    expect(r.code, r.out).toBe(0);
    const runs = (JSON.parse(readFileSync(join(report, 'oracle-cuda.json'), 'utf8')) as { runs: Run[] }).runs;
    expect(runs.length).toBeGreaterThan(20);
    for (const run of runs) {
      expect(run.pass, run.name).toBe(true);
      expect(run.tokensMatched, run.name).toBe(32);
      expect(run.hiddenBitIdentical, run.name).toBe(true);
    }
    const slow = runs.find((x) => x.name.startsWith('slow bus'));
    expect(slow?.groupsMetUploads ?? 0).toBeGreaterThan(0);
  });

  it('upload-done-early is killed on it by the slow bus', () => {
    const report = join(tmp, 'defects');
    const args = ['--backend', 'cuda', '--fake-cuda', '--defect', 'upload-done-early', '--report', report];
    const r = tsx('apps/cli/bin/native_defects.ts', args);
    expect(r.code, r.out).toBe(0);
    const table = JSON.parse(readFileSync(join(report, 'native-defects.json'), 'utf8')) as {
      rows: { id: string; status: string; evidence: string }[];
    };
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0]?.status).toBe('killed');
    expect(table.rows[0]?.evidence).toMatch(/slow bus/);
  });
});
