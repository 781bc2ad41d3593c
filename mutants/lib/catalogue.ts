/**
 * The defect catalogue: every `*.ts` file in mutants/catalogue/ is one mutant, found by
 * reading the directory, so dropping a new file there is all it takes to add one.
 *
 * Invariants checked at load (a bad entry fails loudly, naming its file): the file
 * exports a mutant (`export const mutant` or a default export), its id equals the file
 * name, ids are unique, every expected property id exists in src/check/catalogue.ts, and
 * every patched file is a relative path without `..`.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isPropertyId } from '../../src/check/catalogue.js';
import type { Mutant, MutantEntry } from './types.js';

/** the repository root (this file is mutants/lib/catalogue.ts) */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CATALOGUE_DIR = join(REPO_ROOT, 'mutants/catalogue');

function problemWith(m: unknown): string | null {
  if (typeof m !== 'object' || m === null) return 'exports no mutant object';
  const o = m as Record<string, unknown>;
  for (const key of ['id', 'title', 'history', 'family'] as const) {
    if (typeof o[key] !== 'string' || (o[key] as string).length === 0) return `'${key}' must be a non-empty string`;
  }
  if (!Array.isArray(o.expectedProperties) || o.expectedProperties.some((p) => typeof p !== 'string')) {
    return "'expectedProperties' must be an array of property ids";
  }
  if (!Array.isArray(o.patches) || o.patches.length === 0) return "'patches' must be a non-empty array";
  for (const [i, p] of (o.patches as unknown[]).entries()) {
    const q = p as Record<string, unknown>;
    if (typeof q.file !== 'string' || typeof q.find !== 'string' || typeof q.replace !== 'string') {
      return `patch ${i} needs string 'file', 'find' and 'replace'`;
    }
    // a patch is applied to a scratch copy of the sources: its file must be inside it
    if (isAbsolute(q.file) || q.file.split(/[\\/]/).includes('..')) {
      return `patch ${i}: file '${q.file}' must be a relative path inside the repository, without '..'`;
    }
  }
  return null;
}

/** Loads every mutant of a catalogue directory, sorted by file name. */
export async function loadCatalogue(dir: string = CATALOGUE_DIR): Promise<MutantEntry[]> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
  const out: MutantEntry[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const path = join(dir, f);
    const mod = (await import(pathToFileURL(path).href)) as { mutant?: unknown; default?: unknown };
    const m = mod.mutant ?? mod.default;
    const problem = problemWith(m);
    if (problem !== null) throw new Error(`mutant catalogue: ${path}: ${problem}`);
    const mutant = m as Mutant;
    const want = basename(f, '.ts');
    if (mutant.id !== want)
      throw new Error(`mutant catalogue: ${path}: id '${mutant.id}' must equal the file name '${want}'`);
    if (seen.has(mutant.id)) throw new Error(`mutant catalogue: ${path}: duplicate id '${mutant.id}'`);
    seen.add(mutant.id);
    for (const p of mutant.expectedProperties) {
      if (!isPropertyId(p)) throw new Error(`mutant catalogue: ${path}: unknown property '${p}' in expectedProperties`);
    }
    out.push({ kind: 'catalogue', mutant, source: relative(REPO_ROOT, path).split(sep).join('/') });
  }
  return out;
}
