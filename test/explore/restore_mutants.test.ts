/**
 * Going on from saved states finds what replaying finds on the tier's known defects: for
 * catalogue mutants that the small or the medium configuration catches, a scratch copy
 * with the mutant applied runs the DPOR search with its state cache both ways
 * (restore_compare_child.ts), and the two agree on every schedule count, every state and
 * every violation with the choices that replay it. TIERLAB_RESTORE_MUTANTS=all compares
 * every catalogue mutant on both configurations (17 x 2 searches, about 4 minutes).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { makeScratch } from '../../mutants/lib/scratch.js';

/** mutants the committed configurations catch, and where (from a run over the whole catalogue) */
const CAUGHT: readonly [string, string][] = [
  ['fill-wait-queue-empty', 'small-warmstart'],
  ['shutdown-no-wake', 'small-warmstart'],
  ['victim-freed-while-group-open', 'medium'],
];

const ALL = process.env.TIERLAB_RESTORE_MUTANTS === 'all';
const IDS = ALL
  ? readdirSync(join(REPO_ROOT, 'mutants/catalogue'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
  : [];
const CASES: readonly [string, string][] = ALL
  ? IDS.flatMap((id) => [[id, 'small-warmstart'] as [string, string], [id, 'medium'] as [string, string]])
  : CAUGHT;

describe('the DPOR search going on from saved states, on catalogue mutants', () => {
  for (const [id, scenario] of CASES) {
    it(`finds what the replaying search finds: ${id} on ${scenario}`, async () => {
      const entry = (await loadCatalogue()).find((m) => m.mutant.id === id);
      if (entry === undefined) throw new Error(`no catalogue mutant ${id}`);
      const scratch = makeScratch(REPO_ROOT, join(REPO_ROOT, 'node_modules'), entry.mutant);
      try {
        mkdirSync(join(scratch.dir, 'test/explore'), { recursive: true });
        cpSync(
          join(REPO_ROOT, 'test/explore/restore_compare_child.ts'),
          join(scratch.dir, 'test/explore/restore_compare_child.ts'),
        );
        const out = execFileSync(
          process.execPath,
          ['--import', 'tsx', 'test/explore/restore_compare_child.ts', scenario],
          { cwd: scratch.dir, encoding: 'utf8', timeout: 300_000 },
        );
        const r = JSON.parse(out.trim()) as {
          replayed: { violations: unknown[] };
          restored: unknown;
          failures: number | null;
          stepsPerState: [number, number];
        };
        expect(r.restored).toEqual(r.replayed);
        if (CAUGHT.some(([m, sc]) => m === id && sc === scenario))
          expect(r.replayed.violations.length).toBeGreaterThan(0);
        expect(r.failures).toBe(0);
        expect(r.stepsPerState[1]).toBeLessThan(5);
      } finally {
        scratch.remove();
      }
    });
  }
});
