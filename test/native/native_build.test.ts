/**
 * The native engine's own checks as part of `npm test`: the C tests under ASan+UBSan,
 * the Vulkan backend's bit-exactness test on lavapipe, and a compile of the CUDA
 * library wherever nvcc exists (it cannot run without a GPU, but it must build).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function make(target: string) {
  const r = spawnSync('make', ['-s', '-C', 'native', target], { encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

function hasNvcc(): boolean {
  try {
    execFileSync('nvcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('native engine', () => {
  it('C tests pass under AddressSanitizer and UndefinedBehaviorSanitizer', () => {
    const r = make('test');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed, 0 failed/);
  });

  it('the Vulkan backend is bit-exact against the CPU math on lavapipe', () => {
    const r = make('vulkan-test');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed, 0 failed/);
  });

  it.runIf(hasNvcc())('the CUDA library compiles (sm_90, static runtime, no FMA contraction)', () => {
    const r = make('cuda');
    expect(r.code, r.out).toBe(0);
  });
});
