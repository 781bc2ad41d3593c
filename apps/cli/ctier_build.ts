/**
 * The C tier's schedule harness, built before a command uses it: `make tier-sched-lib` in
 * native/ (quiet, and quick when nothing changed), unless TIERLAB_CTIER_LIB names a
 * library to use instead. A failed build is one line and exit 2, with the command to see
 * why.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from './cli_args.js';

// the checkout this file is in (a mutant's scratch copy holds no mutants/lib to ask)
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function ensureHarnessBuilt(): void {
  if (process.env.TIERLAB_CTIER_LIB !== undefined) return;
  try {
    execFileSync('make', ['-s', '-C', join(REPO_ROOT, 'native'), 'tier-sched-lib'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch {
    usageError('ctier', 'building the C tier harness failed: run make -C native tier-sched-lib to see why');
  }
}
