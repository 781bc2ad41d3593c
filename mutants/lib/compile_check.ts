/**
 * Does a patched file still compile? A mutant that does not is stillborn: it says nothing
 * about the properties, and must never count as killed.
 *
 * Always: a syntax check of every patched file (TypeScript's parser, in process, a few
 * milliseconds). With --typecheck: the whole scratch copy through `tsc --noEmit` (seconds
 * per mutant; type errors that the syntax check misses usually crash the run anyway, and
 * a crash is reported as stillborn too).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { runChild } from './child.js';

export function syntaxErrors(dir: string, files: readonly string[]): string | null {
  const problems: string[] = [];
  for (const f of files) {
    const r = ts.transpileModule(readFileSync(join(dir, f), 'utf8'), {
      fileName: f,
      reportDiagnostics: true,
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
    });
    for (const d of r.diagnostics ?? []) {
      const where =
        d.file !== undefined && d.start !== undefined
          ? `:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
          : '';
      problems.push(`${f}${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return problems.length > 0 ? problems.slice(0, 5).join('; ') : null;
}

/** Type errors in the patched files (whole program checked, errors reported for those files). */
export async function typeErrors(root: string, dir: string, files: readonly string[]): Promise<string | null> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const r = await runChild(process.execPath, [tsc, '--noEmit', '-p', dir], { cwd: dir, timeoutMs: 300_000 });
  if (r.rc === 0) return null;
  const lines = r.stdout.split('\n').filter((l) => files.some((f) => l.startsWith(f)));
  return lines.length > 0 ? lines.slice(0, 5).join('; ') : null;
}
