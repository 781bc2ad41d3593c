/**
 * The Vulkan backend on lavapipe (CI): the oracle's matrix under the Khronos validation
 * layer's core checks. Any validation message (error, warning, VUID, leaked object at
 * shutdown) fails the run. Skipped, with one line saying what to install, where the
 * Vulkan packages are missing. The same matrix under synchronization validation, and the
 * fp8 fixture's (streaming, the trunk), are oracle_vulkan.nightly.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { NO_VULKAN } from '../native/vulkan_toolchain.js';
import { CORE, vulkanOracleRuns } from './vulkan_oracle_runs.js';

/** tokens per run: enough for the matrix's swaps, faults and shutdowns to happen */
const TOKENS = 32;
const oracle = vulkanOracleRuns(1_200_000);

describe.skipIf(NO_VULKAN)('Vulkan oracle on lavapipe under the validation layer', () => {
  it('core validation: every run token-exact and bit-identical, zero validation messages', () => {
    const r = oracle(CORE, 'core-validation', 'fixtures/tiny-moe', TOKENS);
    expect(r.code, r.out).toBe(0);
    expect(r.json.validation).toBe('core');
    expect(r.json.validationMessages).toBe(0);
    for (const run of r.json.runs) {
      expect(run.tokensMatched).toBe(TOKENS);
      expect(run.hiddenBitIdentical).toBe(true);
    }
  });
});
