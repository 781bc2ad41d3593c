/**
 * The default run's complete searches kill the operator mutants that sampled runs reach
 * only rarely: issue's two stop checks removed (the wait of synchronous mode that ignores
 * stop, and the groups built after stop) fall to the search of sync-shutdown-racing.
 * Bounded by runs (one per suite) and by the searches' states, never by seconds: the time
 * limit is a safety net, so the verdict is the same on a loaded machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runMutant } from '../../mutants/lib/run_mutant.js';
import { generateOperatorMutants } from '../../mutants/operators/index.js';

const out = mkdtempSync(join(tmpdir(), 'tierlab-searched-kills-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** issue's stop checks, found by what the operator says, not by line */
const stopChecks = generateOperatorMutants(REPO_ROOT, ['src/tier/group.ts']).filter((e) =>
  e.mutant.id.startsWith('op:remove-stop-check@src/tier/group.ts:'),
);

describe('the complete searches of a default run', () => {
  it('find both stop checks of issue', () => {
    expect(stopChecks.map((e) => e.mutant.title).sort()).toEqual([
      '`!st.stop`: st.stop -> false',
      '`st.inflight > 0 && !st.stop`: st.stop -> false',
    ]);
  });

  it.each(stopChecks.map((e) => [e.mutant.id, e] as const))('kill %s', { timeout: 600_000 }, async (_id, entry) => {
    const r = await runMutant(entry, {
      root: REPO_ROOT,
      outDir: out,
      // one sampled run per suite: the kill is the searches'
      runs: 1,
      // a safety net only: the searches end by running out of states
      seconds: 3600,
      seed: 20261129,
      matrixSeconds: 0,
      typecheck: false,
      keep: false,
    });
    expect(r.status, r.error ?? '').toBe('killed');
    expect(['LIVE-SHUTDOWN', 'SPEC-COUNTERS', 'SPEC-MASK', 'SPEC-SYNC-MODE']).toContain(r.property);
  });
});
