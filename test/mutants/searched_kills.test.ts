/**
 * The default run's complete searches kill the operator mutants that sampled runs reach
 * only rarely: issue's two stop checks removed (the wait of synchronous mode that ignores
 * stop, and the groups built after stop) and re-plan's (pending pairs started, and so
 * dropped, after stop) fall to the search of sync-shutdown-racing; plan_fill's (a plan
 * made after stop) to that of plan-shutdown-racing. Re-plan pairing victims before they
 * are sorted coldest first falls to sync-shutdown-racing too, whose victims' heats are not
 * in expert order. The end of the trunk's placement at DEAD (its gate section moved out of
 * gmx, or the wakeup of a shutdown waiting for it lost) falls to trunk-shutdown-racing; its
 * admission read before gmx changes nothing there (the searches run without the read
 * guard), and falls to the gate suite's sampled runs, which have it.
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

/** the end of the trunk's placement at DEAD: its gate section, and the wakeup of a shutdown waiting for it */
const TRUNK_END = [
  'remove `yield BROADCAST_GCV;`',
  'move `if (g.live === 0 && g.wantX > 0) yield BROADCAST_GCV;` after',
  'move `for (const p of placed)',
  'swap `g.live--;` and',
];
const trunkMutants = generateOperatorMutants(REPO_ROOT, ['src/tier/trunk.ts']);
/** the placement's admission read before gmx: a race the sampled gate suite's read guard sees */
const admissionUnlocked = trunkMutants.filter((e) => e.mutant.title.startsWith('move `const mine ='));
const trunkEnd = trunkMutants.filter(
  (e) => e.equivalent === undefined && TRUNK_END.some((t) => e.mutant.title.startsWith(t)),
);

/** what every kill here shares: the seed, and seconds as a safety net only (the searches
 * end by running out of states, the sampled runs by their count) */
function runOptions() {
  return {
    root: REPO_ROOT,
    outDir: out,
    seconds: 3600,
    seed: 20261129,
    matrixSeconds: 0,
    typecheck: false,
    keep: false,
  };
}

describe('the complete searches of a default run', () => {
  it('find the stop checks of issue, re-plan and plan_fill', () => {
    expect(stopChecks.map((e) => e.mutant.title.replace(/ && st\.qn < .*:/, ' ...:')).sort()).toEqual([
      '`!st.stop`: st.stop -> false',
      '`st.inflight > 0 && !st.stop`: st.stop -> false',
      '`st.stop || devicesFull === st.cfg.devices`: st.stop -> false',
      '`started < limit ...: st.stop -> false',
    ]);
  });

  it('find the pairing swapped before the victims are sorted', () => {
    expect(unsortedVictims).toHaveLength(1);
  });

  it('find the end of the trunk placement', () => {
    expect(trunkEnd.map((e) => e.mutant.id).sort()).toHaveLength(TRUNK_END.length);
  });

  it('and the gate suite finds the placement admitted outside gmx, in 50 runs', { timeout: 600_000 }, async () => {
    expect(admissionUnlocked).toHaveLength(1);
    const entry = admissionUnlocked[0];
    if (entry === undefined) return;
    const r = await runMutant(entry, { ...runOptions(), suite: 'gate', runs: 50 });
    expect(r.status, r.error ?? '').toBe('killed');
    expect(r.property).toBe('SYNC-DISCIPLINE');
  });

  it.each([...stopChecks, ...unsortedVictims, ...trunkEnd].map((e) => [e.mutant.id, e] as const))(
    'kill %s',
    { timeout: 600_000 },
    async (_id, entry) => {
      // one sampled run per suite: the kill is the searches'
      const r = await runMutant(entry, { ...runOptions(), runs: 1 });
      expect(r.status, r.error ?? '').toBe('killed');
      expect([
        'LIVE-SHUTDOWN',
        'SPEC-COUNTERS',
        'SPEC-MASK',
        'SPEC-SYNC-MODE',
        'SPEC-REPLAN',
        'SPEC-PLAN',
        'SYNC-DISCIPLINE',
        'LIVE-DEADLOCK',
        'LIVE-LOST-WAKEUP',
        'SPEC-GATE',
        'GATE-STATE',
      ]).toContain(r.property);
    },
  );
});
