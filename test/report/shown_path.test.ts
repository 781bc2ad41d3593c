/**
 * Every command prints the paths it wrote with one rule (apps/report/shown_path.ts):
 * relative to the working directory when inside it, absolute when not, so that any path
 * a command printed can be pasted into the next command.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shownPath } from '../../apps/report/shown_path.js';

describe('shown paths', () => {
  it('inside the working directory: relative, however it was given', () => {
    expect(shownPath('reports/index.html')).toBe(join('reports', 'index.html'));
    expect(shownPath(resolve('reports/mutants.md'))).toBe(join('reports', 'mutants.md'));
    expect(shownPath('./reports/../reports/bench.md')).toBe(join('reports', 'bench.md'));
  });

  it('outside it: absolute', () => {
    const elsewhere = join(tmpdir(), 'tierlab-elsewhere', 'properties.md');
    expect(shownPath(elsewhere)).toBe(resolve(elsewhere));
    expect(shownPath('../x.md')).toBe(resolve('../x.md'));
  });
});
