/**
 * Survivors shown equivalent by argument: mutants/equivalent.md names them (`**op:...**`
 * entries under "By argument"), and a run that sees one of them survive reports it as
 * equivalent, pointing to the argument. A listed mutant that is killed keeps its kill and
 * says the argument is wrong; an id the file names but the run did not generate (the line
 * moved) is simply not applied, so a stale entry can only leave a survivor visible.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { MutantResult } from './result.js';

/** Ids listed in the "By argument" part of equivalent.md. */
export function arguedIds(markdown: string): Set<string> {
  const at = markdown.indexOf('## By argument');
  const part = at < 0 ? '' : markdown.slice(at);
  const ids = new Set<string>();
  for (const m of part.matchAll(/\*\*(op:[^*\s]+)\*\*/g)) if (m[1] !== undefined) ids.add(m[1]);
  return ids;
}

export function applyArguedEquivalence(results: readonly MutantResult[], file: string): MutantResult[] {
  if (!existsSync(file)) return [...results];
  const ids = arguedIds(readFileSync(file, 'utf8'));
  return results.map((r) => {
    if (!ids.has(r.id)) return r;
    if (r.status === 'survived') {
      return {
        ...r,
        status: 'equivalent',
        equivalentReason: 'by argument: mutants/equivalent.md (it ran and survived)',
      };
    }
    if (r.status === 'killed')
      return { ...r, error: 'listed as equivalent in mutants/equivalent.md, but killed: the argument is wrong' };
    return r;
  });
}
