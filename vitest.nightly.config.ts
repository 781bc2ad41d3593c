// The nightly checks (`npm run test:nightly`): the *.nightly.test.ts files, which
// `npm test` (vitest.config.ts) leaves out because they take minutes each on two cores:
// the CUDA host code under three sanitizers, the Vulkan self-test and oracle matrices
// under the validation layers, the CUDA stand-in's oracle, native defects built and run
// one by one, the largest searches. The runner's settings are vitest.config.ts's; the
// timeouts are safety nets, as there.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.nightly.test.ts'],
    globalSetup: ['test/vulkan_notice.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
