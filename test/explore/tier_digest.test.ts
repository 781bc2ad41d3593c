/**
 * The tier's digest and its objects' places in one walk (model/explore/state/tier_digest.ts)
 * equal what the two walks done apart give: the digest of the state as any value
 * (valueDigest) and the first path to each object (written out here as it was before
 * the walks were joined), at every step of runs of the committed scenarios.
 */
import { describe, expect, it } from 'vitest';
import { valueDigest } from '../../model/explore/state/digest_hash.js';
import { tierDigest } from '../../model/explore/state/tier_digest.js';
import { runScenario } from '../../model/run.js';
import { RandomStrategy } from '../../model/rt/strategy.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { defaultScenario, mediumScenario, smallWarmstart } from '../../properties/committed_scenarios.js';
import type { TierState } from '../../src/tier/state.js';

/** The places walk on its own: depth-first by field name, first path kept, 8 fields deep, not under cfg. */
function placesApart(root: object): Map<object, number> {
  const places = new Map<object, number>();
  const code = (k: string): number => {
    let c = 0x811c9dc5;
    for (let i = 0; i < k.length; i++) c = Math.imul(c ^ k.charCodeAt(i), 0x01000193);
    return c;
  };
  const walk = (o: object, where: number, depth: number): void => {
    if (places.has(o) || depth > 8) return;
    places.set(o, where);
    const rec = o as Record<string, unknown>;
    for (const k in rec) {
      const x = rec[k];
      if (k !== 'cfg' && x !== null && typeof x === 'object')
        walk(x, Math.imul(where ^ code(k), 0x5bd1e995) ^ (where >>> 13), depth + 1);
    }
  };
  walk(root, 0x1b873593, 0);
  return places;
}

/** Every step of `runs` random runs of s: [steps compared, mismatches described]. */
function compareOverRuns(s: Scenario, runs: number): [number, string[]] {
  let compared = 0;
  const bad: string[] = [];
  for (let seed = 0; seed < runs; seed++) {
    let st: TierState | null = null;
    const strategy = new RandomStrategy(`tier-digest-${seed}`);
    const onStep = (): void => {
      if (st === null) return;
      const joined = tierDigest(st);
      const places = placesApart(st);
      compared++;
      if (joined.digest !== valueDigest(st)) bad.push(`seed ${seed} step ${compared}: digest differs`);
      const same = joined.places.size === places.size && [...places].every(([o, p]) => joined.places.get(o) === p);
      if (!same) bad.push(`seed ${seed} step ${compared}: places differ`);
    };
    runScenario(s, {
      strategy: Object.assign(strategy, { onStep }),
      guardReads: false,
      onBuilt: (tier) => {
        st = tier.st;
      },
    });
  }
  return [compared, bad];
}

describe('the tier digest walk', () => {
  const scenarios: readonly [string, Scenario][] = [
    ['default', defaultScenario()],
    ['small warmstart', smallWarmstart()],
    ['medium', mediumScenario()],
  ];
  for (const [name, s] of scenarios) {
    it(`gives the digest and places of the two walks apart: ${name}`, () => {
      const [compared, bad] = compareOverRuns(s, 4);
      expect(compared).toBeGreaterThan(100);
      expect(bad.slice(0, 5)).toEqual([]);
    });
  }
});
