// The test runner's settings. Property suites are CPU-bound: two workers match the 2-core
// machines tierlab runs on.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // one line when the Vulkan tests are skipped, and what to install
    globalSetup: ['test/vulkan_notice.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'model/**/*.ts', 'properties/**/*.ts', 'apps/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'reports/coverage',
    },
  },
});
