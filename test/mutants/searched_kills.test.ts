/**
 * The default run's complete searches kill the operator mutants that sampled runs reach
 * only rarely: issue's two stop checks removed (the wait of synchronous mode that ignores
 * stop, and the groups built after stop) and re-plan's (pending pairs started, and so
 * dropped, after stop) fall to the search of sync-shutdown-racing; plan_fill's (a plan
 * made after stop) to that of plan-shutdown-racing. Re-plan pairing victims before they
 * are sorted coldest first falls to sync-shutdown-racing too, whose victims' heats are not
 * in expert order.
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

/** issue's, re-plan's and plan_fill's stop checks, found by what the operator says, not by line */
const stopChecks = generateOperatorMutants(REPO_ROOT, ['src/tier/group.ts', 'src/tier/replan.ts', 'src/tier/plan.ts'])
  .filter((e) => e.mutant.id.startsWith('op:remove-stop-check@'))
  .filter((e) => !e.mutant.id.includes('@src/tier/plan.ts:') || e.mutant.title.startsWith('`st.stop || devicesFull'));

/** re-plan's pairing loop swapped before the victims' sort */
const unsortedVictims = generateOperatorMutants(REPO_ROOT, ['src/tier/replan.ts']).filter(
  (e) => e.mutant.id.startsWith('op:swap-statements@') && e.mutant.title.startsWith('swap `victims.sort('),
);

describe('the complete searches of a default run', () => {
  it('find the stop checks of issue, re-plan and plan_fill', () => {
    expect(stopChecks.map((e) => e.mutant.title.replace(/ && st\.qn < .*:/, ' ...:')).sort()).toEqual([
      '`!st.stop`: st.stop -> false',
      '`st.inflight > 0 && !st.stop`: st.stop -> false',
      '`st.stop || devicesFull === st.cfg.devices`: st.stop -> false',
      '`started < limit && st.pending.length > 0 ...: st.stop -> false',
    ]);
  });

  it('find the pairing swapped before the victims are sorted', () => {
    expect(unsortedVictims).toHaveLength(1);
  });

  it.each([...stopChecks, ...unsortedVictims].map((e) => [e.mutant.id, e] as const))(
    'kill %s',
    { timeout: 600_000 },
    async (_id, entry) => {
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
      expect(['LIVE-SHUTDOWN', 'SPEC-COUNTERS', 'SPEC-MASK', 'SPEC-SYNC-MODE', 'SPEC-REPLAN', 'SPEC-PLAN']).toContain(
        r.property,
      );
    },
  );
});
