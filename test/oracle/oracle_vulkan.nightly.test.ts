/**
 * The Vulkan backend on lavapipe, nightly (npm run test:nightly): the oracle under the
 * Khronos validation layer with synchronization validation, for the tiny model at 64
 * tokens and the fp8 fixture's matrix (streaming, the trunk). Any validation message
 * (error, warning, VUID, leaked object at shutdown) fails the run. Skipped, with one line
 * saying what to install, where the Vulkan packages are missing. `npm test` runs the core
 * checks (oracle_vulkan.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { NO_VULKAN } from '../native/vulkan_toolchain.js';
import { CORE, vulkanOracleRuns } from './vulkan_oracle_runs.js';

const SYNC = { ...CORE, VK_LAYER_ENABLES: 'VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT' };
const oracle = vulkanOracleRuns(1_800_000);

describe.skipIf(NO_VULKAN)('Vulkan oracle on lavapipe under the validation layers', () => {
  it('synchronization validation: every run token-exact and bit-identical, zero validation messages', () => {
    const r = oracle(SYNC, 'synchronization-validation', 'fixtures/tiny-moe', 64);
    expect(r.code, r.out).toBe(0);
    expect(r.json.validation).toBe('sync');
    expect(r.json.validationMessages).toBe(0);
    for (const run of r.json.runs) {
      expect(run.tokensMatched).toBe(64);
      expect(run.hiddenBitIdentical).toBe(true);
    }
  });

  it('the fp8 fixture (streaming through RAM LRUs, the int8 trunk resident) under synchronization validation', () => {
    const r = oracle(SYNC, 'fp8', 'fixtures/tiny-moe-fp8', 32);
    expect(r.code, r.out).toBe(0);
    expect(r.json.validationMessages).toBe(0);
    for (const run of r.json.runs) {
      expect(run.tokensMatched).toBe(32);
      expect(run.hiddenBitIdentical).toBe(true);
    }
  });
});
