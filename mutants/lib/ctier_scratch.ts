/**
 * A scratch copy of native/ (without its build output) with a C tier mutant's patches
 * applied (mutants/ctier/), and its schedule harness built there
 * (libtierlab_ctier_sched.so): the working tree is never written.
 *
 * The unpatched harness's objects (native/build/tier/sched/, when built) are copied after
 * the sources and before the patched files are written, so make rebuilds only what the
 * patch touched (a second or two, not a whole build).
 *
 * Invariant: a patch that does not apply fails before anything is copied (PatchError,
 * naming the mutant, the file and the text), as for the TypeScript tier's mutants.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { applyMutant } from './patch.js';
import type { Mutant } from './types.js';

export interface CTierScratch {
  readonly dir: string;
  /** the schedule harness this scratch built */
  readonly library: string;
  readonly buildSeconds: number;
  remove(): void;
}

/** The tree's build output a scratch copies: the harness's objects (make rebuilds only what a patch touched). */
const HARNESS_OBJECTS = [join('native', 'build', 'tier', 'sched')];

/** The scratch copy with the patches written, not yet built. */
function prepare(root: string, m: Mutant | null, objectDirs: readonly string[] = HARNESS_OBJECTS): string {
  const patched = m === null ? new Map<string, string>() : applyMutant(m, (f) => readFileSync(join(root, f), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), `tierlab-ctier-${m?.id ?? 'control'}-`));
  try {
    const build = `${sep}native${sep}build`;
    cpSync(join(root, 'native'), join(dir, 'native'), { recursive: true, filter: (src) => !src.includes(build) });
    // the objects after the sources (newer), the patched files after both (newest)
    for (const objects of objectDirs)
      if (existsSync(join(root, objects))) cpSync(join(root, objects), join(dir, objects), { recursive: true });
    for (const [file, text] of patched) writeFileSync(join(dir, file), text);
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

function scratch(dir: string, t0: number): CTierScratch {
  return {
    dir,
    library: join(dir, 'native', 'build', 'libtierlab_ctier_sched.so'),
    buildSeconds: (performance.now() - t0) / 1000,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// the library itself, not tier-sched-lib: its export check is the tree's, once
const MAKE = (dir: string): string[] => ['-s', '-C', join(dir, 'native'), 'build/libtierlab_ctier_sched.so'];

/** Copies native/, applies the mutant (null: none, the control), builds the harness. */
export function buildCTierScratch(root: string, m: Mutant | null): CTierScratch {
  const dir = prepare(root, m);
  const t0 = performance.now();
  try {
    execFileSync('make', MAKE(dir), { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return scratch(dir, t0);
}

/**
 * The same with other make targets (paths under native/, e.g. the stress programs) and the
 * tree's objects of those targets copied too; `library` is the harness's path there.
 */
export function buildCTierScratchFor(
  root: string,
  m: Mutant | null,
  targets: readonly string[],
  objectDirs: readonly string[],
): CTierScratch {
  const dir = prepare(root, m, [...HARNESS_OBJECTS, ...objectDirs]);
  const t0 = performance.now();
  try {
    execFileSync('make', ['-s', '-C', join(dir, 'native'), ...targets], {
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 26,
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return scratch(dir, t0);
}

/** The same, its build a child process this process can wait for beside others. */
export function buildCTierScratchAsync(root: string, m: Mutant | null): Promise<CTierScratch> {
  const dir = prepare(root, m);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile('make', MAKE(dir), { maxBuffer: 1 << 26 }, (err, _out, stderr) => {
      if (err === null) return resolve(scratch(dir, t0));
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`building the C tier harness of ${m?.id ?? 'the control'} failed: ${stderr.slice(0, 400)}`));
    });
  });
}
