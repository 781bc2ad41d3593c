/**
 * Survivors listed in mutants/equivalent.md ("By argument") are reported as equivalent,
 * and only those: a killed listed mutant keeps its kill and says the argument is wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arguedIds } from '../../mutants/lib/argued.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';

describe('equivalent by argument', () => {
  it('reads full operator ids from the By argument part only', () => {
    const md = [
      '# Equivalent mutants',
      '- **op:swap-statements@src/tier/a.ts:1** is before the section: not listed',
      '## By argument',
      '- **op:remove-broadcast@src/tier/uploader.ts:25** (why)',
      '- **op:swap-statements@src/tier/plan.ts:44** and **op:swap-statements@src/tier/plan.ts:48**',
      '- **not an id**',
    ].join('\n');
    expect([...arguedIds(md)].sort()).toEqual([
      'op:remove-broadcast@src/tier/uploader.ts:25',
      'op:swap-statements@src/tier/plan.ts:44',
      'op:swap-statements@src/tier/plan.ts:48',
    ]);
  });

  it('every entry of mutants/equivalent.md is a well-formed operator id', () => {
    const ids = arguedIds(readFileSync(join(REPO_ROOT, 'mutants/equivalent.md'), 'utf8'));
    expect(ids.size).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/^op:[a-z-]+@src\/(tier\/[a-z_]+|engine\/driver)\.ts:\d+(#\d+)?$/);
  });
});
