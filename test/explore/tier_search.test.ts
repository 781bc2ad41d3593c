/**
 * Exhaustive search over the real tier on small scenarios: complete within its bound, and
 * it finds the catalogue's races. (Every mode covering the same states on the correct
 * tier: tier_search.nightly.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimizeChoices } from '../../model/explore/minimize.js';
import { search } from '../../model/explore/search.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { loadCounterexample, saveCounterexample } from '../../properties/counterexample_file.js';
import { checkScenario } from '../../properties/runner.js';
import { faultyWarmstart } from './faulty_fill_wait.js';

// two experts, one loader: small enough for plain DFS to finish in CI
const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });
const faulty = faultyWarmstart(1);

describe('exhaustive search over the tier', () => {
  it('reduction and the state cache lose no violation plain DFS finds', () => {
    const modes = [
      { reduce: false, stateCache: false },
      { reduce: true, stateCache: false },
      { reduce: false, stateCache: true },
      { reduce: true, stateCache: true },
    ];
    for (const P of [1, 2]) {
      const found = modes.map((m) => {
        const r = search(scenarioSubject(tiny, true, faulty), {
          preemptions: P,
          ...m,
          stopOnViolation: false,
          countStates: true,
        });
        expect(r.complete).toBe(true);
        return { props: r.violations.map((v) => v.property).sort(), states: r.states };
      });
      // the reference sees the early return first: fill_wait leaves with uploads in flight
      expect(found[0]?.props).toContain('SPEC-FILL');
      for (const f of found) expect(f).toEqual(found[0]);
    }
  });

  it('reduces: fewer schedules than plain DFS on the same bound', () => {
    const plain = search(scenarioSubject(tiny), { preemptions: 2, reduce: false });
    const reduced = search(scenarioSubject(tiny), { preemptions: 2, reduce: true });
    expect(reduced.schedules).toBeLessThan(plain.schedules);
  });

  it('a violation it finds is saved, replays, and shrinks', () => {
    const r = search(scenarioSubject(tiny, true, faulty), { preemptions: 2, reduce: true });
    const v = r.violations[0];
    if (v === undefined) throw new Error('the faulty fill_wait was not caught');
    const replay = runScenario(tiny, { strategy: new ChoicesStrategy(v.choices), main: faulty });
    expect(replay.violation?.property).toBe(v.property);
    const m = minimizeChoices(tiny, v.choices, v.property, 2000, faulty);
    expect(m.choices.length).toBeLessThanOrEqual(v.choices.length);
    expect(runScenario(tiny, { strategy: new ChoicesStrategy(m.choices), main: faulty }).violation?.property).toBe(
      v.property,
    );
    const dir = mkdtempSync(join(tmpdir(), 'tierlab-explore-test-'));
    try {
      const file = saveCounterexample(dir, {
        property: v.property,
        detail: v.detail,
        mutant: null,
        scenario: tiny,
        choices: m.choices,
      });
      expect(loadCounterexample(file).choices).toEqual(m.choices);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives its guarantee on one scenario through the property runner', () => {
    const r = checkScenario({ scenario: tiny, seed: 1, runs: Infinity, strategy: 'exhaustive', preemptions: 2 });
    expect(r.failure).toBeNull();
    expect(r.guarantee?.complete).toBe(true);
    expect(r.guarantee?.statement).toMatch(/every interleaving with at most 2 preemptions covered/);
  });
});
