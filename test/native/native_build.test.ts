/**
 * The native engine's own checks as part of `npm test`: the C tests under ASan+UBSan and
 * under TSan, the Vulkan backend's bit-exactness test and the C tier (native/tier/) over the
 * Vulkan engine on lavapipe (skipped, with one
 * line saying what to install, where the Vulkan packages are missing). The longer native
 * checks (the Vulkan self-test under the validation layers, the CUDA library's compile,
 * the CUDA host code on the stand-in runtime under three sanitizers) are
 * native_build.nightly.test.ts's.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { NO_VULKAN } from './vulkan_toolchain.js';

/** make's jobs: the sources of a sanitizer build compile apart, one per core */
const JOBS = Math.max(1, cpus().length);

function make(target: string) {
  const r = spawnSync('make', ['-s', `-j${JOBS}`, '-C', 'native', target], { encoding: 'utf8', timeout: 600_000 });
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

  it.skipIf(NO_VULKAN)('the C tier on the Vulkan engine (lavapipe): warmstart, bit-identical groups and trunk', () => {
    const r = make('tier-engine-check-vulkan');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/1 passed, 0 failed/);
  });
});
