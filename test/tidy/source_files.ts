/**
 * The project's own source files and their imports, read once for the tidy tests:
 * tracked files plus new ones not yet committed (never ignored ones such as reports).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export interface SourceFile {
  readonly path: string;
  readonly text: string;
  /** repository-relative paths of the project files it imports */
  readonly imports: readonly string[];
  /** bare package names it imports */
  readonly packages: readonly string[];
}

function listed(args: string[]): string[] {
  return execFileSync('git', args, { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '');
}

export function projectFiles(patterns: readonly string[]): string[] {
  const all = [
    ...listed(['ls-files', '--', ...patterns]),
    ...listed(['ls-files', '--others', '--exclude-standard', '--', ...patterns]),
  ];
  return [...new Set(all)].filter((f) => !f.startsWith('node_modules/')).sort();
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function readSources(patterns: readonly string[] = ['*.ts', '*.mjs']): SourceFile[] {
  return projectFiles(patterns).map((path) => {
    const text = readFileSync(path, 'utf8');
    const imports: string[] = [];
    const packages: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('.')) imports.push(normalize(join(dirname(path), spec.replace(/\.js$/, '.ts'))));
      else packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));
    }
    return { path, text, imports, packages };
  });
}
