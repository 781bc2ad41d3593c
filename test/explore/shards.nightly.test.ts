/**
 * A DPOR search of one scenario in parts on two worker threads gives the verdicts and the
 * distinct states of the search in one thread, and one part alone promises nothing.
 * Nightly (npm run test:nightly): two workers on two busy cores take most of a minute;
 * shards.test.ts checks the parts themselves in npm test.
 */
import { describe, expect, it } from 'vitest';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { exhaustiveParts, joinSearchParts } from '../../properties/search_parts.js';

// two experts, one loader
const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });

describe('a DPOR search in parts on worker threads', () => {
  it('the parts on two worker threads give the verdicts and states of one thread', async () => {
    const request = { scenario: tiny, seed: 1, runs: Infinity, strategy: 'exhaustive', preemptions: Infinity } as const;
    const one = joinSearchParts(request, await exhaustiveParts(request, 1, null));
    const two = joinSearchParts(request, await exhaustiveParts(request, 2, null));
    expect(one.guarantee?.complete).toBe(true);
    expect(two.guarantee?.complete).toBe(true);
    expect(two.guarantee?.states).toBe(one.guarantee?.states);
    expect(two.failure).toEqual(one.failure);
    expect(two.violations).toEqual(one.violations);
    // one part alone promises nothing
    const alone = joinSearchParts(request, await exhaustiveParts(request, 1, { index: 0, count: 2 }));
    expect(alone.guarantee?.complete).toBe(false);
    expect(alone.guarantee?.statement).toMatch(/^exhaustive, part 0 of 2 only: no guarantee until/);
  });
});
