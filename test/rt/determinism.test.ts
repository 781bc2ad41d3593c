/** Determinism: the same seed gives the same trace byte for byte, and a recorded path replays exactly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy, RandomStrategy } from '../../model/rt/strategy.js';
import { scenarioArb, SUITES } from '../../properties/arbitraries.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';

describe('determinism: same seed, same trace, byte for byte', () => {
  it('the same random seed gives the same trace hash twice', () => {
    const s = { ...defaultScenario(), spuriousWakeups: 2 };
    const a = runScenario(s, { strategy: new RandomStrategy('seed-42'), traced: true });
    const b = runScenario(s, { strategy: new RandomStrategy('seed-42'), traced: true });
    expect(a.trace?.hash()).toBe(b.trace?.hash());
    expect(a.trace?.lines().join('\n')).toBe(b.trace?.lines().join('\n'));
    const c = runScenario(s, { strategy: new RandomStrategy('seed-43'), traced: true });
    expect(c.trace?.hash()).not.toBe(a.trace?.hash());
  });

  it('replaying the recorded path of a random run reproduces it exactly', () => {
    for (const suite of SUITES) {
      const scenarios = fc.sample(scenarioArb(suite), { seed: 7, numRuns: 8 });
      scenarios.forEach((s, i) => {
        const random = new RandomStrategy(`${suite}-${i}`);
        const first = runScenario(s, { strategy: random, traced: true });
        const again = runScenario(s, { strategy: new ChoicesStrategy(random.path), traced: true });
        expect(again.trace?.hash()).toBe(first.trace?.hash());
        expect(again.violation?.message).toBe(first.violation?.message);
      });
    }
  });

  it('tracing does not change the run', () => {
    const s = defaultScenario();
    const quiet = runScenario(s, { strategy: new RandomStrategy('t') });
    const traced = runScenario(s, { strategy: new RandomStrategy('t'), traced: true });
    expect(traced.steps).toBe(quiet.steps);
    expect(traced.decisions).toBe(quiet.decisions);
  });
});
