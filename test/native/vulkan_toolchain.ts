/**
 * Whether this machine can run the Vulkan tests (the loader and headers, glslc, a driver
 * and the validation layer): the Vulkan tests skip when it cannot, and the test run says
 * so once, with what to install (test/vulkan_notice.ts).
 */
import { missingVulkanPieces } from '../../scripts/vulkan_toolchain.mjs';

export const NO_VULKAN: boolean = missingVulkanPieces().length > 0;
