/**
 * Vitest configuration for Stryker: runs only the property suite as a test
 * (zz_tmp_search.stryker.ts), from the repository root, one file, no watch.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['mutants/stryker/zz_tmp_search.stryker.ts'],
    testTimeout: 120_000,
    watch: false,
  },
});
