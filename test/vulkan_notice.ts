/**
 * Vitest's global set-up: says once, loudly, when the Vulkan tests will be skipped and
 * what to install (scripts/vulkan_toolchain.mjs finds the missing pieces; the Vulkan
 * test files skip on the same finding). With TIERLAB_REQUIRE_VULKAN=1 (CI, which
 * installs the packages itself) a missing piece fails the run instead.
 */
import { missingVulkanPieces, vulkanSkipLine } from '../scripts/vulkan_toolchain.mjs';

export default function setup(): void {
  const missing = missingVulkanPieces();
  if (missing.length === 0) return;
  if (process.env.TIERLAB_REQUIRE_VULKAN === '1')
    throw new Error(`TIERLAB_REQUIRE_VULKAN=1, but ${vulkanSkipLine(missing)}`);
  process.stderr.write(`\n*** ${vulkanSkipLine(missing)} ***\n\n`);
}
