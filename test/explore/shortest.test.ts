/**
 * The shortest counterexample (shortest.ts) on the #1360 fill_wait race: what it returns
 * replays to the same violation in exactly the steps it claims, and no violating schedule
 * of a complete plain DFS (every schedule with at most 2 preemptions) is shorter; the
 * prefix minimizer's counterexample is never shorter either. The property it comes back
 * with, SPEC-FILL, is the race itself: the reference catches fill_wait's unlock on the way
 * out, and POST-FILL-WAIT (reached with the reference off) the return right after it.
 */
import { describe, expect, it } from 'vitest';
import { minimizeChoices } from '../../model/explore/minimize.js';
import { search } from '../../model/explore/search.js';
import { shortestCounterexample } from '../../model/explore/shortest.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { faultyWarmstart } from './faulty_fill_wait.js';

const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });
const faulty = faultyWarmstart(1);

describe('the shortest counterexample', () => {
  it('replays in the steps it claims, and no schedule violates in fewer', () => {
    const s = shortestCounterexample(scenarioSubject(tiny, true, faulty));
    expect(s.complete).toBe(true);
    const found = s.found;
    if (found === null) throw new Error('the faulty fill_wait was not caught');
    const replay = runScenario(tiny, { strategy: new ChoicesStrategy(found.choices), main: faulty });
    expect(replay.violation?.property).toBe(found.property);
    expect(replay.steps).toBe(found.steps);

    let fewest = Infinity;
    const dfs = search(scenarioSubject(tiny, true, faulty), {
      preemptions: 2,
      reduce: false,
      stopOnViolation: false,
      onSchedule: (r) => {
        if (r.violation !== null) fewest = Math.min(fewest, r.steps);
      },
    });
    expect(dfs.complete).toBe(true);
    expect(found.steps).toBeLessThanOrEqual(fewest);
    const first = dfs.violations[0];
    if (first === undefined) throw new Error('plain DFS found nothing');
    const m = minimizeChoices(tiny, first.choices, found.property, 2000, faulty);
    expect(found.steps).toBeLessThanOrEqual(
      runScenario(tiny, { strategy: new ChoicesStrategy(m.choices), main: faulty }).steps,
    );
  });

  it('is the early return of fill_wait: with the reference off, the same schedule violates POST-FILL-WAIT', () => {
    const s = shortestCounterexample(scenarioSubject(tiny, true, faulty));
    const found = s.found;
    if (found === null) throw new Error('the faulty fill_wait was not caught');
    // the reference sees fill_wait unlock to return while an upload is in flight; the
    // postcondition sees the same return at its mark, after the way out of the gate (its
    // lock and unlock of gmx: two steps later)
    expect(found.property).toBe('SPEC-FILL');
    const off = runScenario(tiny, {
      strategy: new ChoicesStrategy(found.choices),
      main: faulty,
      checks: 'no-refinement',
    });
    expect(off.violation?.property).toBe('POST-FILL-WAIT');
    expect(off.steps).toBe(found.steps + 2);
  });

  it('reports nothing, completely, for a property the scenario cannot violate', () => {
    const s = shortestCounterexample(scenarioSubject(tiny, true, faulty), { property: 'POST-FILL-WAIT' });
    expect(s.found).toBeNull();
    expect(s.complete).toBe(true);
  });
});
