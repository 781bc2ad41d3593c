/**
 * A scratch copy of native/ (without its build output) with a native defect's patches
 * applied, built for one backend there: the working tree is never written.
 *
 * Invariants: a patch that does not apply fails before anything is copied (PatchError,
 * naming the defect, the file and the text), as for the tier's mutants; the copy is a
 * scratch folder of the one clean-up registry (src/input/cleanup.ts), removed however the
 * process ends, and at once when it cannot be made or built (a full temporary directory
 * is an EnvironmentError naming it); the build runs as a child process, so a signal is
 * handled while it runs, and the compiler's temporary files stay inside the copy.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { childTmp, scratchDir } from '../../src/input/cleanup.js';
import { EnvironmentError, environmentErrorOf } from '../../src/input/environment_error.js';
import { runChild } from './child.js';
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
export async function buildNativeScratch(
  root: string,
  d: NativeDefect | null,
  backend: NativeBackend,
  fakeCuda = false,
): Promise<NativeScratch> {
  const fake = fakeCuda && backend === 'cuda';
  const patched = d === null ? new Map<string, string>() : patchedNative(root, d);
  const scratch = scratchDir(`native-${d?.id ?? 'control'}-`);
  const dir = scratch.dir;
  const build = `${sep}native${sep}build`;
  try {
    cpSync(join(root, 'native'), join(dir, 'native'), { recursive: true, filter: (src) => !src.includes(build) });
    for (const [file, text] of patched) writeFileSync(join(dir, file), text);
  } catch (e) {
    scratch.remove();
    const env = environmentErrorOf(e);
    if (env !== null) throw new EnvironmentError(tmpdir(), `cannot make a scratch copy of native/: ${env.problem}`);
    throw e;
  }
  const t0 = performance.now();
  const target = fake ? 'cuda-fake-lib' : backend;
  const r = await runChild('make', ['-s', '-j2', '-C', join(dir, 'native'), target], {
    cwd: dir,
    env: { ...process.env, TMPDIR: childTmp(dir) },
    timeoutMs: 900_000,
  });
  if (r.rc !== 0) {
    scratch.remove();
    const said = r.stderr.trim().split('\n').slice(-3).join(' ');
    if (/No space left on device|Disk quota exceeded/.test(r.stderr))
      throw new EnvironmentError(tmpdir(), `the scratch build of native/ ran out of space: ${said}`);
    throw new Error(`make ${target} failed (${r.timedOut ? 'timed out' : `exit ${r.rc ?? r.signal}`}): ${said}`);
  }
  return {
    dir,
    library: join(dir, 'native', 'build', ...(fake ? ['fake_cuda'] : []), `libtierlab_${backend}.so`),
    buildSeconds: (performance.now() - t0) / 1000,
    remove: scratch.remove,
  };
}
