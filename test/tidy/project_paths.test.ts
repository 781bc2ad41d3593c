/**
 * Tidy: every project path named in the code, its comments and the docs exists. A path is
 * a word that starts with a top-level folder of the project (src/, model/, apps/,
 * properties/, mutants/, test/, native/, scripts/, fixtures/, docs/) and names a file or a
 * folder; it may also be written relative to a folder above the file that names it
 * (native/Makefile names the C files of native/src/ from its own folder). A moved file leaves
 * such names behind, and a stale one sends a reader, or a spawned process, nowhere.
 *
 * Not paths: patterns and placeholders (a part in capitals such as FILE.json or X.ts, or
 * with `<`, `*`, `$` or `{` after it), built output (native/build/), generated reports, and
 * the text of string literals in tests (a test builds files that do not exist in the tree).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectFiles } from './source_files.js';

const TOP = ['src', 'model', 'apps', 'properties', 'mutants', 'test', 'native', 'scripts', 'fixtures', 'docs'];
const PATH = new RegExp(`(?<![\\w./-])((?:${TOP.join('|')})/[A-Za-z0-9_./-]*[A-Za-z0-9_/])`, 'g');
const CHECKED = [
  '*.ts',
  '*.mjs',
  '*.mts',
  '*.sh',
  '*.c',
  '*.h',
  '*.cu',
  '*.comp',
  '*.glsl',
  '*.md',
  '*.json',
  '*.mk',
  '*Makefile',
];

const all = projectFiles(['*']).filter((f) => !f.startsWith('reports/'));
const known = new Set<string>(all);
for (const f of all) {
  const parts = f.split('/');
  for (let i = 1; i < parts.length; i++) known.add(parts.slice(0, i).join('/'));
}

function exists(path: string, from: string): boolean {
  const p = path.replace(/\/+$/, '').replace(/\.$/, '');
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (known.has(normalize(dir === '.' ? p : join(dir, p)))) return true;
    if (dir === '.' || dir === '/') return false;
  }
}

function isPattern(path: string, after: string): boolean {
  return (
    ['<', '*', '$', '{'].includes(after) ||
    path.startsWith('native/build') ||
    path.split('/').some((part) => /^[A-Z][A-Z_]*(\.\w+)?$/.test(part))
  );
}

/** The paths a file names that do not exist, as `file:line: path`. */
function stalePaths(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  text.split('\n').forEach((raw, i) => {
    // a test's string literals build files of their own; its comments and code still count
    const line = file.startsWith('test/') ? raw.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`/g, "''") : raw;
    for (const m of line.matchAll(PATH)) {
      const path = m[1] ?? '';
      const after = line[(m.index ?? 0) + path.length] ?? '';
      if (!isPattern(path, after) && !exists(path, file)) out.push(`${file}:${i + 1}: ${path}`);
    }
  });
  return out;
}

describe('tidy: project paths', () => {
  it('every project path named in code, comments and docs exists', () => {
    const files = projectFiles(CHECKED).filter((f) => !f.startsWith('reports/') && f !== 'package-lock.json');
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(stalePaths)).toEqual([]);
  });

  it('finds a stale path, a path relative to a folder above, and leaves patterns alone', () => {
    expect(exists('src/check/ledger.ts', 'README.md')).toBe(true);
    expect(exists('src/dispatch.c', 'native/Makefile')).toBe(true);
    expect(exists('model/explore/bench/race_worker.ts', 'apps/cli/bench/race.ts')).toBe(false);
    expect(isPattern('properties/replays/FILE.json', ' ')).toBe(true);
    expect(isPattern('native/build/libtierlab_cpu.so', ' ')).toBe(true);
    expect(isPattern('apps/cli/bin/', '$')).toBe(true);
  });
});
