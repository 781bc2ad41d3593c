/**
 * The Vulkan backend on lavapipe, nightly (npm run test:nightly): the oracle under the
 * Khronos validation layer with synchronization validation, for the tiny model at 64
 * tokens and the fp8 fixture's matrix (streaming, the trunk). Any validation message
 * (error, warning, VUID, leaked object at shutdown) fails the run. Skipped, with one line
 * saying what to install, where the Vulkan packages are missing. `npm test` runs the core
 * checks (oracle_vulkan.test.ts).
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
const SYNC = { ...CORE, VK_LAYER_ENABLES: 'VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT' };

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
    timeout: 1_800_000,
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

describe.skipIf(NO_VULKAN)('Vulkan oracle on lavapipe under the validation layers', () => {
  for (const [name, env] of [['synchronization validation', SYNC]] as const) {
    it(`${name}: every run token-exact and bit-identical, zero validation messages`, () => {
      const r = oracle(env, join(tmp, name.replace(/ /g, '-')));
      expect(r.code, r.out).toBe(0);
      expect(r.json.validation).toBe('sync');
      expect(r.json.validationMessages).toBe(0);
      for (const run of r.json.runs) {
        expect(run.tokensMatched).toBe(64);
        expect(run.hiddenBitIdentical).toBe(true);
      }
    });
  }

  it('the fp8 fixture (streaming through RAM LRUs, the int8 trunk resident) under synchronization validation', () => {
    const r = oracle(SYNC, join(tmp, 'fp8'), 'fixtures/tiny-moe-fp8', 32);
    expect(r.code, r.out).toBe(0);
    expect(r.json.validationMessages).toBe(0);
    for (const run of r.json.runs) {
      expect(run.tokensMatched).toBe(32);
      expect(run.hiddenBitIdentical).toBe(true);
    }
  });
});
