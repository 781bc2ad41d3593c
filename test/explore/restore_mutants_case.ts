/**
 * The DPOR search going on from saved states against the one replaying every run, on one
 * catalogue mutant: a scratch copy with the mutant applied runs both with the state cache
 * (restore_compare_child.ts), and they must agree on every count, state and violation
 * with the choices that replay it (restore_mutants.nightly.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { makeScratch } from '../../mutants/lib/scratch.js';

/** mutants the committed configurations catch, and where (from a run over the whole catalogue) */
export const CAUGHT: readonly [string, string][] = [
  ['fill-wait-queue-empty', 'small-warmstart'],
  ['shutdown-no-wake', 'small-warmstart'],
  ['victim-freed-while-group-open', 'medium'],
];

export async function restoreMatchesOnMutant(id: string, scenario: string): Promise<void> {
  const entry = (await loadCatalogue()).find((m) => m.mutant.id === id);
  if (entry === undefined) throw new Error(`no catalogue mutant ${id}`);
  const scratch = makeScratch(REPO_ROOT, join(REPO_ROOT, 'node_modules'), entry.mutant);
  try {
    mkdirSync(join(scratch.dir, 'test/explore'), { recursive: true });
    cpSync(
      join(REPO_ROOT, 'test/explore/restore_compare_child.ts'),
      join(scratch.dir, 'test/explore/restore_compare_child.ts'),
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/explore/restore_compare_child.ts', scenario], {
      cwd: scratch.dir,
      encoding: 'utf8',
      timeout: 1_800_000,
    });
    const r = JSON.parse(out.trim()) as {
      replayed: { violations: unknown[] };
      restored: unknown;
      failures: number | null;
      stepsPerState: [number, number];
    };
    expect(r.restored).toEqual(r.replayed);
    if (CAUGHT.some(([m, sc]) => m === id && sc === scenario)) expect(r.replayed.violations.length).toBeGreaterThan(0);
    expect(r.failures).toBe(0);
    expect(r.stepsPerState[1]).toBeLessThan(5);
  } finally {
    scratch.remove();
  }
}
