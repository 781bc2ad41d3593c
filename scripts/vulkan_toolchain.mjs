#!/usr/bin/env node
/**
 * What the Vulkan tests need from the system, and which Debian/Ubuntu package gives each
 * piece: the loader and its headers (libvulkan-dev), the shader compiler (glslc), a
 * driver (mesa-vulkan-drivers: lavapipe, Vulkan on the CPU) and the Khronos validation
 * layers (vulkan-validationlayers). One list for the set-up step (scripts/setup.mjs), the
 * tests (which skip exactly the Vulkan tests, saying why, when a piece is missing) and CI
 * (`node scripts/vulkan_toolchain.mjs --packages` prints the list .ci/run installs).
 * Plain Node, no dependencies: it runs before npm install.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @type {readonly string[]} */
export const VULKAN_PACKAGES = ['mesa-vulkan-drivers', 'libvulkan-dev', 'glslc', 'vulkan-validationlayers'];

const DATA_DIRS = ['/usr/share/vulkan', '/usr/local/share/vulkan', '/etc/vulkan'];

/** @param {string} cmd @param {string[]} args @param {string} [input] */
function runs(cmd, args, input) {
  try {
    execFileSync(cmd, args, { stdio: ['pipe', 'ignore', 'ignore'], input: input ?? '', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** @param {string} variable @param {string} sub @param {(file: string) => boolean} wanted */
function found(variable, sub, wanted) {
  const listed = process.env[variable];
  const dirs = listed !== undefined && listed !== '' ? listed.split(':') : DATA_DIRS.map((d) => join(d, sub));
  return dirs.some((d) => {
    if (d.endsWith('.json')) return existsSync(d);
    try {
      return readdirSync(d).some(wanted);
    } catch {
      return false;
    }
  });
}

/**
 * The pieces that are missing, each with the package that provides it (empty: all there).
 * @returns {{ what: string, pkg: string }[]}
 */
export function missingVulkanPieces() {
  const missing = [];
  const program =
    '#include <vulkan/vulkan.h>\nint main(void) { uint32_t v = 0; return (int)vkEnumerateInstanceVersion(&v); }\n';
  if (!runs(process.env.CC ?? 'cc', ['-x', 'c', '-', '-o', '/dev/null', '-lvulkan'], program)) {
    missing.push({ what: 'the Vulkan headers and loader (vulkan/vulkan.h, -lvulkan)', pkg: 'libvulkan-dev' });
  }
  if (!runs(process.env.GLSLC ?? 'glslc', ['--version']))
    missing.push({ what: 'the shader compiler glslc', pkg: 'glslc' });
  const icd = process.env.VK_DRIVER_FILES ? 'VK_DRIVER_FILES' : 'VK_ICD_FILENAMES';
  if (!found(icd, 'icd.d', (f) => f.endsWith('.json')))
    missing.push({ what: 'a Vulkan driver (lavapipe)', pkg: 'mesa-vulkan-drivers' });
  if (!found('VK_LAYER_PATH', 'explicit_layer.d', (f) => /khronos_validation/i.test(f))) {
    missing.push({ what: 'the Khronos validation layer', pkg: 'vulkan-validationlayers' });
  }
  return missing;
}

/** The one line that says the Vulkan tests are skipped and what to install. @param {{ what: string, pkg: string }[]} missing */
export function vulkanSkipLine(missing) {
  const pkgs = [...new Set(missing.map((m) => m.pkg))].join(' ');
  return (
    `VULKAN TESTS SKIPPED: missing ${missing.map((m) => m.what).join(', ')}; ` +
    `install them (Debian/Ubuntu, as root: apt-get install ${pkgs}) and run npm test again`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--packages')) {
  process.stdout.write(`${VULKAN_PACKAGES.join('\n')}\n`);
}
