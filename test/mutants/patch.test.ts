/**
 * A mutant whose patch no longer matches the source fails loudly, naming the mutant and
 * the file: a refactor of the tier must never turn a mutant into a silent no-op.
 */
import { describe, expect, it } from 'vitest';
import { applyMutant, PatchError } from '../../mutants/lib/patch.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runMutant } from '../../mutants/lib/run_mutant.js';
import type { Mutant } from '../../mutants/lib/types.js';

const files: Record<string, string> = {
  'src/a.ts': 'const x = 1;\nconst y = 2;\nconst x2 = 1;\n',
};
const read = (f: string): string => {
  const t = files[f];
  if (t === undefined) throw new Error(`ENOENT ${f}`);
  return t;
};

function mutant(patches: Mutant['patches'], id = 'test-mutant'): Mutant {
  return { id, title: 't', history: 'h', family: 'any', expectedProperties: [], patches };
}

describe('applyMutant', () => {
  it('replaces text that occurs exactly once', () => {
    const out = applyMutant(mutant([{ file: 'src/a.ts', find: 'const y = 2;', replace: 'const y = 3;' }]), read);
    expect(out.get('src/a.ts')).toBe('const x = 1;\nconst y = 3;\nconst x2 = 1;\n');
  });

  it('fails naming the mutant and the file when find does not match', () => {
    const m = mutant([{ file: 'src/a.ts', find: 'const z = 9;', replace: '' }], 'renamed-away');
    expect(() => applyMutant(m, read)).toThrow(PatchError);
    expect(() => applyMutant(m, read)).toThrow(/mutant 'renamed-away': src\/a\.ts: find text occurs 0 times/);
  });

  it('fails when find matches more than once', () => {
    const m = mutant([{ file: 'src/a.ts', find: ' = 1;', replace: ' = 4;' }], 'ambiguous');
    expect(() => applyMutant(m, read)).toThrow(
      /mutant 'ambiguous': src\/a\.ts: find text occurs 2 times, want exactly once/,
    );
  });

  it('fails when a file is missing, naming it', () => {
    const m = mutant([{ file: 'src/gone.ts', find: 'x', replace: 'y' }], 'lost-file');
    expect(() => applyMutant(m, read)).toThrow(/mutant 'lost-file': src\/gone\.ts: cannot read the file/);
  });

  it('fails when a span patch finds other text than it expects', () => {
    const m = mutant([{ file: 'src/a.ts', start: 0, end: 5, expect: 'let x', replace: 'var x' }], 'stale-span');
    expect(() => applyMutant(m, read)).toThrow(/mutant 'stale-span': src\/a\.ts: expected "let x" at offset 0/);
  });

  it('a run of a mutant whose patch does not apply is stillborn, never killed', async () => {
    const m = mutant(
      [{ file: 'src/tier/fill_wait.ts', find: 'this text is not in the tier', replace: '' }],
      'no-such-line',
    );
    const r = await runMutant(
      { kind: 'catalogue', mutant: m, source: 'test' },
      { root: REPO_ROOT, outDir: '/nonexistent', seconds: 1, seed: 1, matrixSeconds: 0, typecheck: false, keep: false },
    );
    expect(r.status).toBe('stillborn');
    expect(r.error).toMatch(/mutant 'no-such-line': src\/tier\/fill_wait\.ts: find text occurs 0 times/);
  });
});
