// Types of scripts/vulkan_toolchain.mjs (plain Node, so that it runs before npm install).
export declare const VULKAN_PACKAGES: readonly string[];
export declare function missingVulkanPieces(): { what: string; pkg: string }[];
export declare function vulkanSkipLine(missing: readonly { what: string; pkg: string }[]): string;
