/** PCT: the strategy's priorities and change points, its determinism, and the bound's arithmetic. */
import { describe, expect, it } from 'vitest';
import { confidenceOf, describeBound, pctBound, runsFor } from '../../model/explore/pct_bound.js';
import { pctCampaign } from '../../model/explore/pct_campaign.js';
import { runScenario } from '../../model/run.js';
import { PctStrategy } from '../../model/rt/pct.js';
import type { ChoiceContext } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';
import { defaultScenario, smallWarmstart } from '../../properties/committed_scenarios.js';

const thread = (tid: number): SimThread => ({ tid }) as SimThread;
const ctx = (tids: number[], runnable = tids.length): ChoiceContext => ({
  options: tids.map(thread),
  runnable,
  current: tids[0] ?? -1,
  currentCanMove: true,
  gmxOwner: -1,
  mxOwner: -1,
  step: 0,
});

describe('PCT strategy', () => {
  it('moves the highest-priority runnable thread, whatever the option order', () => {
    const pct = new PctStrategy({ seed: 'a', depth: 1, steps: 10, maxThreads: 4 });
    const best = [0, 1, 2, 3].reduce((b, t) => ((pct.priority[t] ?? 0) > (pct.priority[b] ?? 0) ? t : b), 0);
    expect(new Set(pct.priority).size).toBe(4);
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [2, 0, 3, 1],
    ]) {
      expect(order[pct.pick(4, 'thread', ctx(order))]).toBe(best);
    }
    // waiters woken by a signal: the same priorities decide
    expect([1, 2, 3, 0][pct.pick(4, 'wake', ctx([1, 2, 3, 0]))]).toBe(best);
  });

  it('a change point drops the thread that takes that step below every initial priority', () => {
    const pct = new PctStrategy({ seed: 'b', depth: 3, steps: 5, maxThreads: 3 });
    expect(pct.changeAt).toHaveLength(2);
    const at = pct.changeAt[0] ?? 1;
    for (let step = 1; step <= 5; step++) pct.onStep(thread(step === at ? 1 : 2));
    expect(pct.priority[1]).toBeLessThan(3);
    // thread 0 never moved: no change point touched it
    expect(pct.priority[0]).toBeGreaterThanOrEqual(3);
    // thread 2 moved on every other step: lowered exactly when the second point fell on one
    const second = pct.changeAt[1] ?? 0;
    expect((pct.priority[2] ?? 0) < 3).toBe(second !== at);
  });

  it('takes no spurious wakeup while a thread can move, and one when none can', () => {
    const pct = new PctStrategy({ seed: 'c', depth: 1, steps: 10, maxThreads: 3 });
    for (let i = 0; i < 20; i++) expect(pct.pick(3, 'thread', ctx([0, 1, 2], 1))).toBe(0);
    const waiter = pct.pick(2, 'thread', ctx([1, 2], 0));
    expect([1, 2][waiter]).toBe((pct.priority[1] ?? 0) > (pct.priority[2] ?? 0) ? 1 : 2);
  });

  it('is reproducible from its seed, and its path replays the run', () => {
    const s = defaultScenario();
    const run = (seed: string) => {
      const strategy = new PctStrategy({ seed, depth: 2, steps: 300, maxThreads: 16 });
      const r = runScenario(s, { strategy, traced: true });
      return { hash: r.trace?.hash(), path: strategy.path, changeAt: strategy.changeAt };
    };
    const a = run('seed-1');
    expect(run('seed-1')).toEqual(a);
    expect(run('seed-2').changeAt).not.toEqual(a.changeAt);
    expect(
      runScenario(s, {
        strategy: new PctStrategy({ seed: 'seed-1', depth: 2, steps: 300, maxThreads: 16 }),
        traced: true,
      }).trace?.hash(),
    ).toBe(a.hash);
  });
});

describe('PCT bound arithmetic', () => {
  it('p = 1/(n k^(d-1)) and runs = ceil(ln(1-c)/ln(1-p))', () => {
    expect(pctBound(4, 100, 1).perRun).toBe(1 / 4);
    expect(pctBound(4, 100, 2).perRun).toBe(1 / 400);
    expect(pctBound(5, 10, 3).perRun).toBeCloseTo(1 / 500, 15);
    const b = pctBound(4, 100, 2);
    const r = runsFor(b, 0.99);
    expect(r).toBe(Math.ceil(Math.log(0.01) / Math.log(1 - 1 / 400)));
    expect(r).toBe(1840);
    expect(confidenceOf(b, r)).toBeGreaterThanOrEqual(0.99);
    expect(confidenceOf(b, r - 1)).toBeLessThan(0.99);
    expect(runsFor(pctBound(1, 1, 1), 0.999)).toBe(1);
    expect(describeBound(b, r)).toMatch(/n=4 threads, k=100 steps/);
    expect(() => runsFor(b, 1)).toThrow(RangeError);
  });

  it('a campaign on one scenario runs until the wanted confidence, k grown if need be', () => {
    const c = pctCampaign(smallWarmstart(), { depth: 1, confidence: 0.999, seed: 't' });
    expect(c.violations).toEqual([]);
    expect(c.complete).toBe(true);
    expect(c.confidence).toBeGreaterThanOrEqual(0.999);
    expect(c.bound.threads).toBe(4);
    expect(c.statement).toMatch(/depth-1 bug is found with probability >= 99\.9/);
  });
});
