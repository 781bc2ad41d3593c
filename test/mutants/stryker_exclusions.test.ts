/**
 * The Stryker exclusions held outside the sources (mutants/stryker/exclusions.json, applied by
 * mutants/stryker/exclusions.mjs): the tier's and the reference's sources carry no Stryker
 * comment, every entry still names a line of its file, and the instrumenter, given the ignorer, excludes
 * on each entry's line exactly the mutants of the entry's mutators, and at least one (an
 * entry that excludes nothing is a comment in the wrong place, not an exclusion).
 * Instruments only; runs no mutant.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { describe, expect, it } from 'vitest';
import { EXCLUSIONS, ignorer, staleExclusions } from '../../mutants/stryker/exclusions.mjs';
import { QUIET_LOGGER } from '../../mutants/stryker/quiet_logger.js';

/** the folders Stryker mutates: the tier and the reference */
const MUTATED = ['src/tier', 'src/protocol_ref'];
const files = MUTATED.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ path: `${dir}/${f}`, content: readFileSync(join(dir, f), 'utf8') })),
);

describe('Stryker exclusions held outside the sources', () => {
  it('no Stryker comment in the sources; every entry names a line of its file as often as it says', () => {
    expect(files.filter((f) => /Stryker (disable|restore)/.test(f.content)).map((f) => f.path)).toEqual([]);
    const stale = files.flatMap((f) => staleExclusions(f.path, f.content).map((e) => `${f.path}: ${e.line}`));
    expect(stale).toEqual([]);
    const known = new Set(files.map((f) => f.path));
    expect(EXCLUSIONS.filter((e) => !known.has(e.file)).map((e) => e.file)).toEqual([]);
  });

  it("excludes on each entry's line exactly its mutators' mutants, and at least one", async () => {
    const input = files.map((f) => ({ name: resolve(f.path), content: f.content, mutate: true as const }));
    const result = await new Instrumenter(QUIET_LOGGER).instrument(input, {
      plugins: null,
      excludedMutations: [],
      ignorers: [ignorer as never],
    });
    const lineText = new Map(files.map((f) => [resolve(f.path), f.content.split('\n')]));
    const problems: string[] = [];
    for (const e of EXCLUSIONS) {
      const onLine = result.mutants.filter(
        (m) => m.fileName === resolve(e.file) && lineText.get(m.fileName)?.[m.location.start.line]?.trim() === e.line,
      );
      const ignored = onLine.filter((m) => m.status === 'Ignored');
      if (ignored.length === 0) problems.push(`${e.file}: '${e.line}' excludes nothing`);
      for (const m of onLine) {
        const wanted = e.mutators.includes(m.mutatorName);
        if (wanted !== (m.status === 'Ignored'))
          problems.push(`${e.file}: '${e.line}': ${m.mutatorName} ${wanted ? 'not excluded' : 'excluded'}`);
      }
    }
    const elsewhere = result.mutants.filter(
      (m) =>
        m.status === 'Ignored' &&
        !EXCLUSIONS.some(
          (e) => resolve(e.file) === m.fileName && lineText.get(m.fileName)?.[m.location.start.line]?.trim() === e.line,
        ),
    );
    expect(problems).toEqual([]);
    expect(elsewhere.map((m) => `${m.fileName}:${m.location.start.line} ${m.mutatorName}`)).toEqual([]);
  });
});
