/**
 * The native engine's longer checks, nightly (npm run test:nightly): the Vulkan self-test's
 * staged uploads and completions on lavapipe, with and without synchronization validation
 * (skipped, with one line saying what to install, where the Vulkan packages are missing);
 * a compile of the CUDA library wherever nvcc exists; and the CUDA backend's host code on
 * the stand-in CUDA runtime (no GPU here, but its streams, events, reapers and heap run
 * under ASan, UBSan and TSan). `npm test` runs the C tests and the Vulkan bit-exactness
 * test (native_build.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { HAS_NVCC } from './cuda_toolchain.js';
import { NO_VULKAN } from './vulkan_toolchain.js';

/** make's jobs: the sources of a sanitizer build compile apart, one per core */
const JOBS = Math.max(1, cpus().length);

function make(target: string) {
  const r = spawnSync('make', ['-s', `-j${JOBS}`, '-C', 'native', target], { encoding: 'utf8', timeout: 1_800_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('native engine, nightly', () => {
  it.skipIf(NO_VULKAN)('staged RAM copies, uploads in flight and completions on Vulkan, validation-clean', () => {
    const r = make('vulkan-selftest');
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/[1-9]\d* failed/);
  });

  it.runIf(HAS_NVCC)('the CUDA library compiles (sm_90, static runtime, no FMA contraction)', () => {
    const r = make('cuda');
    expect(r.code, r.out).toBe(0);
  });

  it.runIf(HAS_NVCC)('the CUDA host code runs on the fake runtime under ASan, UBSan and TSan', () => {
    const r = make('cuda-fake-test');
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/[1-9]\d* failed/);
  });
});
