/**
 * Survivors listed in mutants/equivalent.md ("By argument") are reported as equivalent,
 * and only those: a killed listed mutant keeps its kill and says the argument is wrong.
 * An entry must name a mutant today's operators generate (and do not already mark
 * equivalent by construction), quoting the code that mutant swaps or moves: a line that
 * moved would otherwise leave the id on another statement, whose survival the argument
 * would wrongly excuse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arguedIds } from '../../mutants/lib/argued.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { generateOperatorMutants } from '../../mutants/operators/index.js';

const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** Each listed id with the first code its entry quotes after it (up to the next id). */
function quotedAfterIds(markdown: string): Map<string, string> {
  const part = markdown.slice(Math.max(0, markdown.indexOf('## By argument')));
  const out = new Map<string, string>();
  const ids = [...part.matchAll(/\*\*(op:[^*\s]+)\*\*/g)];
  ids.forEach((m, i) => {
    const end = ids[i + 1]?.index ?? part.length;
    const code = /`([^`]+)`/.exec(part.slice((m.index ?? 0) + m[0].length, end));
    if (m[1] !== undefined) out.set(m[1], code?.[1] ?? '');
  });
  return out;
}

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

  it('every entry names a mutant generated today, quoting the code it changes', () => {
    const generated = new Map(generateOperatorMutants(REPO_ROOT).map((e) => [e.mutant.id, e]));
    const quoted = quotedAfterIds(readFileSync(join(REPO_ROOT, 'mutants/equivalent.md'), 'utf8'));
    for (const [id, code] of quoted) {
      const entry = generated.get(id);
      expect(entry, `${id} is not generated from today's sources`).toBeDefined();
      expect(entry?.equivalent, `${id} is equivalent by construction already`).toBeUndefined();
      expect(code, `${id}: its entry quotes no code`).not.toBe('');
      // a quote may elide with `...`, as the titles do: the part before must match
      const head = flat(code.split('...')[0] ?? '').trim();
      expect(head, `${id}: its quote is only an ellipsis`).not.toBe('');
      expect(flat(entry?.mutant.title ?? ''), `${id}: the entry quotes \`${code}\``).toContain(head);
    }
  });
});
