#!/usr/bin/env node
/**
 * Set-up that every npm entry point runs first, so a fresh clone needs no other step:
 *  - installs the npm dependencies when node_modules is missing or older than the lock;
 *  - with --native, builds the native CPU engine (make -C native), which has no
 *    dependency beyond a C compiler.
 * Idempotent and quiet when there is nothing to do. Plain Node, no dependencies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });

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
  process.stderr.write('setup: installing npm dependencies (npm install, following package-lock.json)\n');
  run('npm', ['install', '--no-audit', '--no-fund']);
}

if (process.argv.includes('--native')) {
  try {
    run('make', ['-s', '-C', 'native', 'cpu']);
  } catch {
    process.stderr.write('setup: building the native CPU engine failed (make -C native cpu); the oracle tests need it\n');
    process.exit(1);
  }
}
