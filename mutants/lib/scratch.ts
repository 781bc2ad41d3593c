/**
 * Scratch copies of the sources a mutant may touch, in temporary directories, with the
 * mutant's patches applied there: the working tree is never written.
 *
 * A run first takes one snapshot of the working tree (src/, model/, properties/,
 * package.json, tsconfig.json, and the probe script mutants/lib/probe.ts), and every
 * mutant's scratch copy is made from that snapshot: other people may be editing the tree
 * while a long run goes on, and every mutant must see the same sources. node_modules is a
 * symlink to the working tree's.
 *
 * Invariants: a patch reads and writes only inside its copy (a path with `..` is refused);
 * a revision reaches git only as the commit hash `git rev-parse` resolved it to, never as
 * text git could read as an option; every copy is a scratch folder of the one clean-up
 * registry (src/input/cleanup.ts), so a signal, an error or the end of the process
 * removes it; a copy that cannot be made whole (a full temporary directory) is removed
 * at once and the failure is an EnvironmentError naming the temporary directory.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { scratchDir, type ScratchDir } from '../../src/input/cleanup.js';
import { EnvironmentError, environmentErrorOf } from '../../src/input/environment_error.js';
import { inside } from '../../src/input/paths.js';
import { applyMutant } from './patch.js';
import type { Mutant } from './types.js';

const COPIED = ['src', 'model', 'properties', 'apps', 'package.json', 'tsconfig.json', 'mutants/lib/probe.ts'];

export interface Scratch {
  readonly dir: string;
  /** files the mutant changed, relative to the scratch root */
  readonly patched: readonly string[];
  remove(): void;
}

/**
 * `fill(dir)` in a new scratch folder; the folder removed again when it fails (a full
 * temporary directory is an EnvironmentError naming it: nothing half-made stays).
 */
function filled(prefix: string, fill: (dir: string) => void): ScratchDir {
  const scratch = scratchDir(prefix);
  try {
    fill(scratch.dir);
  } catch (e) {
    scratch.remove();
    const env = environmentErrorOf(e);
    if (env !== null) throw new EnvironmentError(tmpdir(), `cannot make a scratch copy of the sources: ${env.problem}`);
    throw e;
  }
  return scratch;
}

function copyTree(from: string, nodeModules: string, prefix: string): ScratchDir {
  return filled(prefix, (dir) => {
    for (const p of COPIED) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      cpSync(join(from, p), join(dir, p), { recursive: true });
    }
    symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
  });
}

/**
 * One consistent copy of the sources for a whole run: the working tree's, or, with `rev`,
 * the sources of that commit (`git archive`), so that numbers can be measured on a
 * committed state while the tree is being edited. The probe script always comes from the
 * working tree.
 * Throws when `rev` names no commit (nothing is left behind then).
 */
export function makeSnapshot(root: string, rev?: string): Scratch {
  if (rev === undefined) return listed(copyTree(root, join(root, 'node_modules'), 'sources-'), []);
  const commit = resolveCommit(root, rev);
  const scratch = filled('sources-', (dir) => {
    const tracked = COPIED.filter((p) => !p.startsWith('mutants/'));
    const tar = execFileSync('git', ['archive', '--format=tar', commit, '--', ...tracked], {
      cwd: root,
      maxBuffer: 1 << 30,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    for (const p of COPIED.filter((q) => q.startsWith('mutants/'))) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      cpSync(join(root, p), join(dir, p));
    }
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  return listed(scratch, []);
}

/** The commit hash `rev` names; `--end-of-options` keeps a `rev` like `--output=F` an argument. */
export function resolveCommit(root: string, rev: string): string {
  const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  });
  const commit = r.status === 0 ? r.stdout.trim() : '';
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`'${rev}' names no commit of ${root}`);
  return commit;
}

/**
 * Copies the sources from `from` (the snapshot, or the working tree) and applies the
 * mutant; throws PatchError, before copying anything, when a patch does not apply or
 * names a file outside the copy.
 */
export function makeScratch(from: string, nodeModules: string, m: Mutant | null): Scratch {
  const source = `mutant ${m?.id ?? ''}`;
  const patched =
    m === null ? new Map<string, string>() : applyMutant(m, (f) => readFileSync(inside(from, f, source), 'utf8'));
  const copy = copyTree(from, nodeModules, 'mutant-');
  try {
    for (const [file, text] of patched) writeFileSync(inside(copy.dir, file, source), text);
  } catch (e) {
    copy.remove();
    throw environmentErrorOf(e) ?? e;
  }
  return listed(copy, [...patched.keys()]);
}

function listed(copy: ScratchDir, patched: readonly string[]): Scratch {
  return { dir: copy.dir, patched, remove: copy.remove };
}
