#!/usr/bin/env node
/**
 * Set-up that every npm entry point runs first, so a fresh clone needs no other step:
 *  - checks the environment (src/input/environment.mjs: the temporary directory the
 *    TypeScript loader caches in, every TIERLAB_ variable), before anything can fail with
 *    a stack trace: one line naming the problem, exit 2 or 74;
 *  - installs the npm dependencies when node_modules is missing or older than the lock;
 *  - with --native, builds the native CPU engine (make -C native), which has no
 *    dependency beyond a C compiler;
 *  - with --vulkan (npm test), tries to make the Vulkan tests runnable: when a system
 *    piece is missing (scripts/vulkan_toolchain.mjs) it installs the packages with
 *    apt-get where it can (as root, on Debian/Ubuntu). Where it cannot, the test run
 *    skips exactly the Vulkan tests and says so in one line (test/vulkan_notice.ts): a
 *    missing system package is never a failure of npm test, and never a silent pass.
 *    clang-format, for the C format check, is installed the same way (that check is
 *    skipped, saying so, where it cannot be).
 * Idempotent and quiet when there is nothing to do (a build it has to make is announced in
 * one line). Plain Node, no dependencies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEnvironment } from '../src/input/environment.mjs';
import { missingVulkanPieces } from './vulkan_toolchain.mjs';

// npm names the script it runs: the command a problem is reported for
checkEnvironment(process.env.npm_lifecycle_event ?? 'setup');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** @param {string} cmd @param {string[]} args @param {NodeJS.ProcessEnv} [env] */
const run = (cmd, args, env) =>
  execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: env ?? process.env });
/** @param {string} line */
const say = (line) => process.stderr.write(`setup: ${line}\n`);

/** @param {string} path */
function mtime(path) {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return 0;
  }
}

const stamp = 'node_modules/.package-lock.json';
if (!existsSync(join(root, 'node_modules')) || mtime(stamp) < mtime('package-lock.json')) {
  // npm install, not npm ci: a transitive optional dependency (of vite, through vitest)
  // names a package the registry does not have, which npm ci refuses as a lock mismatch
  say('installing npm dependencies (npm install, following package-lock.json)');
  run('npm', ['install', '--no-audit', '--no-fund']);
}

if (process.argv.includes('--native')) {
  // a build from scratch takes a while on two busy cores: say so, rather than sit silent
  if (!runs('make', ['-q', '-s', '-C', 'native', 'cpu']))
    say('building the native CPU engine (make -C native cpu) ...');
  try {
    // and the C tier over it (libtierlab_ctier_cpu.so: `npm run oracle -- --tier c`)
    run('make', ['-s', '-C', 'native', 'cpu', 'tier']);
  } catch {
    say('building the native CPU engine failed (make -C native cpu tier); the oracle tests need it');
    process.exit(1);
  }
}

if (process.argv.includes('--vulkan')) {
  // the Vulkan tests' pieces, and clang-format for the C format check (test/tidy/c_format.test.ts)
  const pkgs = [...new Set(missingVulkanPieces().map((m) => m.pkg))];
  if (!runs('clang-format', ['--version'])) pkgs.push('clang-format');
  if (pkgs.length > 0 && installable()) {
    say(`installing what the tests need: apt-get install ${pkgs.join(' ')}`);
    try {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      run('apt-get', ['update', '-qq'], env);
      run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], env);
    } catch {
      say('apt-get could not install them (no network, or no such packages here)');
    }
  }
}

/** whether a command starts at all */
function runs(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** apt-get as root: the one way this script installs system packages */
function installable() {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
