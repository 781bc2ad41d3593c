/**
 * The Vulkan backend on lavapipe (CI): the oracle's matrix under the Khronos validation
 * layer's core checks. Any validation message (error, warning, VUID, leaked object at
 * shutdown) fails the run. Skipped, with one line saying what to install, where the
 * Vulkan packages are missing. The same matrix under synchronization validation, and the
 * fp8 fixture's (streaming, the trunk), are oracle_vulkan.nightly.test.ts's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_VULKAN } from '../native/vulkan_toolchain.js';

const CORE = {
  VK_LOADER_LAYERS_ENABLE: '*validation*',
  VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation',
  TIERLAB_VK_VALIDATION: '1',
};
/** tokens per run: enough for the matrix's swaps, faults and shutdowns to happen */
const TOKENS = 32;

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-vk-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  if (!NO_VULKAN) execFileSync('make', ['-s', '-C', 'native', 'vulkan'], { stdio: 'inherit' });
});

function oracle(env: Record<string, string>, report: string, fixture = 'fixtures/tiny-moe', tokens = 64) {
  const args = ['--backend', 'vulkan', '--tokens', String(tokens), '--fixture', fixture, '--report', report];
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 1_200_000,
  });
  return {
    code: r.status,
    out: r.stdout + r.stderr,
    json: JSON.parse(readFileSync(join(report, 'oracle-vulkan.json'), 'utf8')) as {
      ok: boolean;
      validation: string;
      validationMessages: number;
      runs: { tokensMatched: number; hiddenBitIdentical: boolean }[];
    },
  };
}

describe.skipIf(NO_VULKAN)('Vulkan oracle on lavapipe under the validation layer', () => {
  it('core validation: every run token-exact and bit-identical, zero validation messages', () => {
    const r = oracle(CORE, join(tmp, 'core-validation'), 'fixtures/tiny-moe', TOKENS);
    expect(r.code, r.out).toBe(0);
    expect(r.json.validation).toBe('core');
    expect(r.json.validationMessages).toBe(0);
    for (const run of r.json.runs) {
      expect(run.tokensMatched).toBe(TOKENS);
      expect(run.hiddenBitIdentical).toBe(true);
    }
  });
});
