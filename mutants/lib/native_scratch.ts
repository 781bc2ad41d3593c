/**
 * A scratch copy of native/ (without its build output) with a native defect's patches
 * applied, built for one backend there: the working tree is never written.
 *
 * Invariant: a patch that does not apply fails before anything is copied (PatchError,
 * naming the defect, the file and the text), as for the tier's mutants.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { applyMutant } from './patch.js';
import type { NativeBackend } from '../../src/engine/native/library_file.js';
import type { NativeDefect } from './native_defect.js';

export interface NativeScratch {
  readonly dir: string;
  /** the library this scratch built */
  readonly library: string;
  readonly buildSeconds: number;
  remove(): void;
}

/** The patched texts of the defect's files (PatchError when a find does not match once). */
export function patchedNative(root: string, d: NativeDefect): Map<string, string> {
  return applyMutant(
    { id: d.id, title: d.title, history: d.history, family: 'native', expectedProperties: [], patches: d.patches },
    (f) => readFileSync(join(root, f), 'utf8'),
  );
}

/** Copies native/, applies the defect (null: none, the control), builds the backend
 *  (`fakeCuda`: the CUDA host code over the host-only stand-in runtime, tests/fake_cuda.c,
 *  for a machine without a GPU). */
export function buildNativeScratch(
  root: string,
  d: NativeDefect | null,
  backend: NativeBackend,
  fakeCuda = false,
): NativeScratch {
  const fake = fakeCuda && backend === 'cuda';
  const patched = d === null ? new Map<string, string>() : patchedNative(root, d);
  const dir = mkdtempSync(join(tmpdir(), `tierlab-native-${d?.id ?? 'control'}-`));
  const build = `${sep}native${sep}build`;
  cpSync(join(root, 'native'), join(dir, 'native'), { recursive: true, filter: (src) => !src.includes(build) });
  for (const [file, text] of patched) writeFileSync(join(dir, file), text);
  const t0 = performance.now();
  execFileSync('make', ['-s', '-j2', '-C', join(dir, 'native'), fake ? 'cuda-fake-lib' : backend], {
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  return {
    dir,
    library: join(dir, 'native', 'build', ...(fake ? ['fake_cuda'] : []), `libtierlab_${backend}.so`),
    buildSeconds: (performance.now() - t0) / 1000,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
