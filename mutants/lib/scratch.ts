/**
 * Scratch copies of the sources a mutant may touch, in temporary directories, with the
 * mutant's patches applied there: the working tree is never written.
 *
 * A run first takes one snapshot of the working tree (src/, model/, properties/,
 * package.json, tsconfig.json, and the probe script mutants/lib/probe.ts), and every
 * mutant's scratch copy is made from that snapshot: other people may be editing the tree
 * while a long run goes on, and every mutant must see the same sources. node_modules is a
 * symlink to the working tree's.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { applyMutant } from './patch.js';
import type { Mutant } from './types.js';

const COPIED = ['src', 'model', 'properties', 'package.json', 'tsconfig.json', 'mutants/lib/probe.ts'];

export interface Scratch {
  readonly dir: string;
  /** files the mutant changed, relative to the scratch root */
  readonly patched: readonly string[];
  remove(): void;
}

function copyTree(from: string, nodeModules: string, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const p of COPIED) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    cpSync(join(from, p), join(dir, p), { recursive: true });
  }
  symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
  return dir;
}

/**
 * One consistent copy of the sources for a whole run: the working tree's, or, with `rev`,
 * the sources of that commit (`git archive`), so that numbers can be measured on a
 * committed state while the tree is being edited. The probe script always comes from the
 * working tree.
 */
export function makeSnapshot(root: string, rev?: string): Scratch {
  let dir: string;
  if (rev === undefined) {
    dir = copyTree(root, join(root, 'node_modules'), 'tierlab-sources-');
  } else {
    dir = mkdtempSync(join(tmpdir(), 'tierlab-sources-'));
    const tracked = COPIED.filter((p) => !p.startsWith('mutants/'));
    const tar = execFileSync('git', ['archive', '--format=tar', rev, '--', ...tracked], { cwd: root, maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    for (const p of COPIED.filter((q) => q.startsWith('mutants/'))) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      cpSync(join(root, p), join(dir, p));
    }
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  }
  return { dir, patched: [], remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Copies the sources from `from` (the snapshot, or the working tree) and applies the
 * mutant; throws PatchError, before copying anything, when a patch does not apply.
 */
export function makeScratch(from: string, nodeModules: string, m: Mutant | null): Scratch {
  const patched = m === null ? new Map<string, string>() : applyMutant(m, (f) => readFileSync(join(from, f), 'utf8'));
  const dir = copyTree(from, nodeModules, 'tierlab-mutant-');
  for (const [file, text] of patched) writeFileSync(join(dir, file), text);
  return { dir, patched: [...patched.keys()], remove: () => rmSync(dir, { recursive: true, force: true }) };
}
