/**
 * The native defect catalogue: every `*.ts` file in mutants/native/ is one defect
 * (mutants/lib/native_defect.ts), found by reading the directory.
 *
 * Invariants checked at load (a bad entry fails loudly, naming its file): the file
 * exports `defect`, its id equals the file name, it names known backends and at least
 * one oracle run, and every patch edits a file under native/.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './catalogue.js';
import { NATIVE_BACKENDS } from '../../src/engine/native/library_file.js';
import type { NativeDefect } from './native_defect.js';

export const NATIVE_DIR = join(REPO_ROOT, 'mutants/native');

function problemWith(d: unknown, id: string): string | null {
  if (typeof d !== 'object' || d === null) return 'exports no `defect` object';
  const o = d as Partial<NativeDefect>;
  if (o.id !== id) return `id '${String(o.id)}' must equal the file name '${id}'`;
  for (const key of ['title', 'history', 'caughtBy'] as const) {
    if (typeof o[key] !== 'string' || o[key].length === 0) return `'${key}' must be a non-empty string`;
  }
  if (!Array.isArray(o.backends) || o.backends.length === 0 || o.backends.some((b) => !NATIVE_BACKENDS.includes(b))) {
    return `'backends' must name some of ${NATIVE_BACKENDS.join(', ')}`;
  }
  if (!Array.isArray(o.runs) || o.runs.length === 0) return "'runs' must name at least one oracle run";
  if (!Array.isArray(o.patches) || o.patches.length === 0) return "'patches' must be a non-empty array";
  for (const [i, p] of o.patches.entries()) {
    if (
      typeof p.file !== 'string' ||
      !p.file.startsWith('native/') ||
      typeof p.find !== 'string' ||
      typeof p.replace !== 'string'
    ) {
      return `patch ${i} needs 'find' and 'replace' on a file under native/`;
    }
  }
  return null;
}

export async function loadNativeDefects(dir: string = NATIVE_DIR): Promise<NativeDefect[]> {
  const out: NativeDefect[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { defect?: unknown };
    const problem = problemWith(mod.defect, basename(f, '.ts'));
    if (problem !== null) throw new Error(`native defects: ${join(dir, f)}: ${problem}`);
    out.push(mod.defect as NativeDefect);
  }
  return out;
}
