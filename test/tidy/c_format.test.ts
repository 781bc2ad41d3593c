/**
 * The C and CUDA sources of native/ are as clang-format (.clang-format, version 14 or
 * later) writes them. Where clang-format is missing the check is skipped with one line
 * saying what to install (npm test's set-up installs it as root); CI installs it, and
 * there a skip is a failure.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';

function clangFormatVersion(): number | null {
  try {
    const out = execFileSync('clang-format', ['--version'], { encoding: 'utf8' });
    const m = /version (\d+)/.exec(out);
    return m?.[1] !== undefined ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

const version = clangFormatVersion();
const usable = version !== null && version >= 14;
if (!usable && process.env.CI !== 'true') {
  process.stderr.write(
    'C FORMAT CHECK SKIPPED: clang-format 14 or later is missing; install it (apt-get install clang-format)\n',
  );
}

describe('native sources are formatted', () => {
  it.skipIf(!usable && process.env.CI !== 'true')('clang-format --dry-run finds nothing to change', () => {
    expect(usable, 'clang-format 14 or later is required in CI').toBe(true);
    const files = execFileSync('git', ['ls-files', 'native/*.c', 'native/*.h', 'native/*.cu'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f !== '');
    expect(files.length).toBeGreaterThan(50);
    // --Werror: a file that would change is an error, named with its line
    let problems = '';
    try {
      execFileSync('clang-format', ['--dry-run', '--Werror', ...files], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      problems = String((e as { stderr?: string }).stderr ?? e).slice(0, 2000);
    }
    expect(problems, 'run `npm run format:c`').toBe('');
  });
});
