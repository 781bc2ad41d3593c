/**
 * The native engine's own checks as part of `npm test`: the C tests under ASan+UBSan and
 * under TSan, the Vulkan backend's bit-exactness test and the self-test's staged uploads
 * and completions on lavapipe (validation-clean; skipped, with one line saying what to
 * install, where the Vulkan packages are missing), the C tier (native/tier/) over the Vulkan
 * engine there, a compile of the CUDA library wherever
 * nvcc exists, and the CUDA backend's host code on the fake CUDA runtime (it cannot run
 * on a GPU here, but its streams, events, reapers and heap run under the sanitizers).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HAS_NVCC } from './cuda_toolchain.js';
import { NO_VULKAN } from './vulkan_toolchain.js';

function make(target: string) {
  const r = spawnSync('make', ['-s', '-C', 'native', target], { encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('native engine', () => {
  it('C tests pass under AddressSanitizer and UndefinedBehaviorSanitizer', () => {
    const r = make('test');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed, 0 failed/);
  });

  it('C tests pass under ThreadSanitizer (uploader, copy threads, completion drainer at once)', () => {
    const r = make('test-tsan');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed, 0 failed/);
  });

  it.skipIf(NO_VULKAN)('the Vulkan backend is bit-exact against the CPU math on lavapipe', () => {
    const r = make('vulkan-test');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed, 0 failed/);
  });

  it.skipIf(NO_VULKAN)('staged RAM copies, uploads in flight and completions on Vulkan, validation-clean', () => {
    const r = make('vulkan-selftest');
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/[1-9]\d* failed/);
  });

  it.skipIf(NO_VULKAN)('the C tier on the Vulkan engine (lavapipe): warmstart, bit-identical groups and trunk', () => {
    const r = make('tier-engine-check-vulkan');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/1 passed, 0 failed/);
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
