/**
 * Runs of the Vulkan oracle on lavapipe under the Khronos validation layer, for the CI
 * test (core checks) and the nightly one (synchronization validation, the fp8 fixture):
 * the layer's settings, the library built once, a report folder removed after the file,
 * and one oracle run as a child process with its report read back.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { NO_VULKAN } from '../native/vulkan_toolchain.js';

/** the validation layer's core checks */
export const CORE: Readonly<Record<string, string>> = {
  VK_LOADER_LAYERS_ENABLE: '*validation*',
  VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation',
  TIERLAB_VK_VALIDATION: '1',
};

export interface VulkanOracleRun {
  readonly code: number | null;
  readonly out: string;
  readonly json: {
    ok: boolean;
    validation: string;
    validationMessages: number;
    runs: { tokensMatched: number; hiddenBitIdentical: boolean }[];
  };
}

/**
 * Builds the Vulkan library before the file's tests (where the toolchain is there) and
 * gives a runner whose reports go to a folder removed after them.
 */
export function vulkanOracleRuns(timeoutMs: number) {
  const tmp = mkdtempSync(join(tmpdir(), 'tierlab-vk-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  beforeAll(() => {
    if (!NO_VULKAN) execFileSync('make', ['-s', '-C', 'native', 'vulkan'], { stdio: 'inherit' });
  });
  return (env: Readonly<Record<string, string>>, name: string, fixture: string, tokens: number): VulkanOracleRun => {
    const report = join(tmp, name);
    const args = ['--backend', 'vulkan', '--tokens', String(tokens), '--fixture', fixture, '--report', report];
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle.ts', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: timeoutMs,
    });
    return {
      code: r.status,
      out: r.stdout + r.stderr,
      json: JSON.parse(readFileSync(join(report, 'oracle-vulkan.json'), 'utf8')) as VulkanOracleRun['json'],
    };
  };
}
