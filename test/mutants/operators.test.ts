/**
 * The concurrency operators: every generated mutant has a located id, applies to the
 * current sources, and still parses (a mutant that cannot compile says nothing).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { applyMutant } from '../../mutants/lib/patch.js';
import { generateOperatorMutants, OPERATORS } from '../../mutants/operators/index.js';

const mutants = generateOperatorMutants(REPO_ROOT);
const read = (f: string): string => readFileSync(join(REPO_ROOT, f), 'utf8');

describe('concurrency operators', () => {
  it('generate mutants for every operator, ids naming operator, file and line', () => {
    for (const op of OPERATORS) expect(mutants.some((m) => m.mutant.id.startsWith(`op:${op.name}@`))).toBe(true);
    for (const m of mutants)
      expect(m.mutant.id).toMatch(/^op:[a-z-]+@(src\/tier\/[a-z_]+|src\/engine\/driver)\.ts:\d+(#\d+)?$/);
    expect(new Set(mutants.map((m) => m.mutant.id)).size).toBe(mutants.length);
  });

  it('each applies to the current sources and still parses', () => {
    for (const m of mutants) {
      const out = applyMutant(m.mutant, read);
      for (const [file, text] of out) {
        const r = ts.transpileModule(text, {
          fileName: file,
          reportDiagnostics: true,
          compilerOptions: { target: ts.ScriptTarget.ES2022 },
        });
        expect(r.diagnostics ?? [], `${m.mutant.id} in ${file}`).toEqual([]);
      }
    }
  });

  it('turn the broadcast in take into an inline signal of cv_take', () => {
    const m = mutants.find((x) => x.mutant.id.startsWith('op:broadcast-to-signal@src/tier/group.ts:'));
    expect(m).toBeDefined();
    const text = m === undefined ? '' : (applyMutant(m.mutant, read).get('src/tier/group.ts') ?? '');
    expect(text).toContain("yield { k: 'signal', cv: 'cv_take' };");
  });
});
