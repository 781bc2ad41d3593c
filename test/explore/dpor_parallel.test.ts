/**
 * The DPOR search on worker threads (dpor/parallel.ts) is the one-thread search
 * (dpor/search.ts) interleaved: on toy programs and on the tier with a race it reaches the
 * same distinct states and finds the same properties violated, complete, with about as
 * many schedules (optimal DPOR: one per trace; the order of a parallel search may add a
 * few); a limit stops it as incomplete. The same on the tier with thousands of schedules
 * is dpor_parallel.nightly.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { dporParallel } from '../../model/explore/dpor/parallel.js';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import { subjectNamed, tiny, TOYS } from './parallel_subjects.js';

/** the toy that is the tier: a tree a worker pair takes a quarter of a minute over */
const TIER = 'tier with the fill_wait race';

const MODULE = new URL('./parallel_subjects.ts', import.meta.url).href;
const opts = { preemptions: Infinity, reduce: true, stopOnViolation: false, countStates: true } as const;

/**
 * How long a worker keeps a subtree: the default time slice, a subtree handed back after
 * every run (each run's positions and races come back to the tree at once), and after
 * every third run (the owner takes over positions with explored branches, and reverses
 * races of runs the worker made without it).
 */
const SLICES = [
  { name: 'the default slice', slice: undefined },
  { name: 'one run a slice', slice: { ms: Infinity, runs: 1 } },
  { name: 'three runs a slice', slice: { ms: Infinity, runs: 3 } },
] as const;

describe('DPOR on worker threads', () => {
  for (const name of TOYS) {
    // the tier's tree under every slice is dpor_parallel.nightly.test.ts's; here, its default
    for (const { name: sliced, slice } of SLICES.filter((x) => name !== TIER || x.slice === undefined)) {
      it(`gives the states and verdicts of the one-thread search: ${name}, ${sliced}`, async () => {
        const one = dporSearch(subjectNamed(name), opts);
        const two = await dporParallel({ module: MODULE, fn: 'subjectNamed', arg: name }, opts, 2, slice);
        expect(two.complete).toBe(true);
        expect(two.states).toBe(one.states);
        expect(new Set(two.violations.map((v) => v.property))).toEqual(new Set(one.violations.map((v) => v.property)));
        expect(two.schedules).toBeGreaterThanOrEqual(one.schedules);
        expect(two.schedules).toBeLessThanOrEqual(Math.ceil(one.schedules * 1.2));
        expect(two.dpor.infeasible).toBe(0);
        expect(two.dpor.sleepBlocked).toBe(0);
      });
    }
  }

  it('stops at the first violation, whose choices replay it', async () => {
    const name = 'tier with the fill_wait race';
    const spec = { module: MODULE, fn: 'subjectNamed', arg: name };
    const two = await dporParallel(spec, { ...opts, stopOnViolation: true }, 2);
    expect(two.complete).toBe(false);
    expect(two.stoppedBy).toBe('violation');
    const found = two.violations[0];
    if (found === undefined) throw new Error('no violation found');
    const replay = runScenario(tiny, { strategy: new ChoicesStrategy(found.choices), main: faultyWarmstart(1) });
    expect(replay.violation?.property).toBe(found.property);
  });

  it('refuses a bound or a state cache with a one-line error', async () => {
    const spec = { module: MODULE, fn: 'subjectNamed', arg: 'lost updates' };
    await expect(dporParallel(spec, { ...opts, preemptions: 2 }, 2)).rejects.toThrow(/unbounded and stateless/);
    await expect(dporParallel(spec, { ...opts, stateCache: true }, 2)).rejects.toThrow(/unbounded and stateless/);
  });
});
