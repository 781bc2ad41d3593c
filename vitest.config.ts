// The test runner's settings for `npm test`. Property suites are CPU-bound: two workers
// match the 2-core machines tierlab runs on. The heavy checks that belong to a nightly run
// (*.nightly.test.ts: sanitizer builds of the CUDA stand-in, validation-layer matrices,
// native defects built one by one, the longest searches) are vitest.nightly.config.ts's,
// run by `npm run test:nightly` (and `npm run test:full`: both).
//
// Timeouts are safety nets, never budgets: no test's verdict may depend on how fast the
// machine is (searches and kills in tests are bounded by runs or states), so they are
// set far above what any test takes on a loaded 2-core machine.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.nightly.test.ts', 'node_modules/**'],
    // one line when the Vulkan tests are skipped, and what to install
    globalSetup: ['test/vulkan_notice.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
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
