/**
 * Every defect of the catalogue is killed, by a property it is expected to fall to,
 * within a budget of runs, not seconds: RUNS schedules per suite (and the default run's
 * complete searches), stopping at the first kill, so the verdict is the same on a loaded
 * machine as on a quiet one (each kill needs well under a hundred runs today). The time
 * limits are safety nets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runPool } from '../../mutants/lib/pool.js';
import { runMutant } from '../../mutants/lib/run_mutant.js';

/** schedules per suite for each mutant */
const RUNS = 200;
const out = mkdtempSync(join(tmpdir(), 'tierlab-mutants-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('defect catalogue', () => {
  it('every catalogue mutant is killed by a property of its family', { timeout: 900_000 }, async () => {
    const entries = await loadCatalogue();
    const results = await runPool(entries, Math.max(1, Math.min(2, cpus().length)), (e) =>
      runMutant(e, {
        root: REPO_ROOT,
        outDir: out,
        runs: RUNS,
        // a safety net only: the runs bound each mutant's search long before this
        seconds: 3600,
        seed: 20261129,
        matrixSeconds: 0,
        typecheck: false,
        keep: false,
      }),
    );
    const problems = results
      .filter((r) => r.status !== 'killed' || r.asExpected !== true)
      .map((r) =>
        r.status === 'killed'
          ? `${r.id}: killed by ${r.property}, expected one of ${r.expectedProperties.join(', ')}`
          : `${r.id}: ${r.status}${r.error !== null ? ` (${r.error})` : ''}`,
      );
    expect(problems).toEqual([]);
    for (const r of results) {
      expect(r.counterexample, r.id).not.toBeNull();
      expect(r.choices, r.id).not.toBeNull();
    }
  });
});
