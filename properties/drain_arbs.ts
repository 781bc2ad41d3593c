/**
 * The `drain` suite: re-plan while pairs are still pending (PROTOCOL.md, "Re-plan"). It
 * takes the replan suite's scenarios and makes the re-plan's own queue work:
 *  - a second prompt right after the first (`again`), re-planned while the first one's
 *    pairs may still be pending, so the second call must leave their victims and
 *    newcomers alone;
 *  - about half of each layer resident (a planned warmstart by a heat file that warms the
 *    lower experts of every layer, a little and often equally; no trunk taking the budget,
 *    no upload failing), and prompts routed over the upper experts: many residents the
 *    prompt never routes, many routed experts left out, victims whose heats tie;
 *  - rings of one to three entries, uploads mostly asynchronous, so pairs stay pending
 *    and the decode ticks drain them a few at a time;
 *  - max_swaps from one, below the candidates; counts that tie, so the tie-breaks choose;
 *  - an LFRU round every tick now and then, which may evict a pending pair's victim
 *    before the pair starts (the pair must then be dropped);
 *  - now and then one device with two layers of eight experts, two routes a token, a
 *    prompt of three tokens, the table form with up to eight pairs, a ring of three and
 *    synchronous uploads: more pairs pending than a tick may start (two) with room in
 *    the ring for more.
 * Not drawn by `mixed`: the other suites' seeded scenarios stay what they were.
 */
import fc from 'fast-check';
import type { Scenario } from '../model/scenario/scenario.js';

interface Drain {
  readonly form: 'layer' | 'table';
  readonly maxSwaps: number;
  readonly prefill: number;
  readonly again: number;
  readonly ringCapacity: number;
  readonly syncUploads: boolean;
  readonly lfruEveryTick: boolean;
  readonly spare: number;
  readonly warmth: readonly number[];
  readonly many: boolean;
}

const drainParts: fc.Arbitrary<Drain> = fc.record({
  form: fc.constantFrom<'layer' | 'table'>('layer', 'table', 'table'),
  maxSwaps: fc.integer({ min: 1, max: 8 }),
  prefill: fc.integer({ min: 2, max: 4 }),
  again: fc.integer({ min: 1, max: 3 }),
  ringCapacity: fc.constantFrom(1, 1, 2, 3, 3),
  syncUploads: fc.constantFrom(false, false, true),
  lfruEveryTick: fc.boolean(),
  spare: fc.constantFrom(0, 0, 1),
  // heats of the lower experts, by position (a heat file's values are halved on load)
  warmth: fc.array(fc.integer({ min: 2, max: 5 }), { minLength: 16, maxLength: 16 }),
  many: fc.constantFrom(false, false, true),
});

/** One device, two layers of eight experts, two routes a token (the scenario's other parts kept). */
function manyPairs(base: Scenario): Scenario {
  return {
    ...base,
    devices: 1,
    layers: 2,
    experts: 8,
    topk: 2,
    budgetExperts: [1],
    capacityExperts: [null],
    noRam: [],
    shutdownAt: null,
    prefer: null,
  };
}

function lowerHalf(experts: number, topk: number): number {
  return Math.min(Math.floor(experts / 2), experts - topk);
}

/** Prompt tokens route the upper half of each layer's experts; decode tokens any. */
function routesArb(base: Scenario, promptTokens: number): fc.Arbitrary<number[][][]> {
  const all = Array.from({ length: base.experts }, (_, e) => e);
  const upper = all.slice(lowerHalf(base.experts, base.topk));
  const pick = (eids: number[]): fc.Arbitrary<number[]> =>
    fc.shuffledSubarray(eids, { minLength: base.topk, maxLength: base.topk });
  return fc.tuple(
    ...base.routes.map((_, t) =>
      fc.array(pick(t < promptTokens ? upper : all), { minLength: base.layers, maxLength: base.layers }),
    ),
  );
}

export function drainArb(replanSuite: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> {
  return fc.tuple(replanSuite, drainParts).chain(([drawn, d]) => {
    const base = d.many ? manyPairs(drawn) : drawn;
    const tokens = base.routes.length;
    const prefill = Math.min(d.many ? 3 : d.prefill, Math.max(1, tokens - 1));
    // many pairs: the second prompt right after the first, while most are still pending
    const again = Math.max(0, Math.min(d.many ? 1 : d.again, tokens - prefill));
    // the warm lower experts fill their devices (one fewer now and then)
    const warm = Math.floor((base.layers * lowerHalf(base.experts, base.topk)) / base.devices);
    return routesArb(base, prefill + again).map(
      (routes): Scenario => ({
        ...base,
        routes,
        warmstart: 'plan',
        heatFile: Array.from({ length: base.layers }, (_, l) =>
          Array.from({ length: base.experts }, (_, e) =>
            e < lowerHalf(base.experts, base.topk) ? (d.warmth[(l * base.experts + e) % d.warmth.length] ?? 2) : 0,
          ),
        ),
        heatFileDefect: 'none',
        budgetExperts: base.budgetExperts.map(() => Math.max(1, warm - d.spare)),
        capacityExperts: base.capacityExperts.map(() => null),
        denseBytes: 0,
        denseWhileGroupOpen: false,
        trunk: [],
        faults: { ...base.faults, uploadFails: [] },
        ringCapacity: d.many ? 3 : d.ringCapacity,
        syncUploads: d.many || d.syncUploads,
        swapPeriod: d.lfruEveryTick ? 1 : base.swapPeriod,
        replan: d.many
          ? { form: 'table', maxSwaps: 8, prefill, again }
          : { form: d.form, maxSwaps: d.maxSwaps, prefill, again },
      }),
    );
  });
}
