/**
 * Scenarios and schedules as fast-check arbitraries.
 *
 * A schedule is an array of small integers (see model/rt/strategy.ts), so fast-check
 * shrinks it like any array: towards fewer and smaller choices, i.e. fewer preemptions.
 * Scenarios shrink towards fewer devices, layers, experts and tokens, no faults, no
 * heat file. Suites bias the generator towards one area (multi-device wide groups,
 * streaming, fill-once) while staying inside the same space.
 */
import fc from 'fast-check';
import type { Scenario } from '../model/scenario/scenario.js';
import type { ShutdownPoint } from '../src/engine/driver.js';

/** 'mixed' draws from every other suite: the quickest first look (mutation runs bail
 *  at the first violation, so it goes first). */
export const SUITES = ['mixed', 'general', 'wide', 'streaming', 'fill-once', 'shutdown'] as const;
export type Suite = (typeof SUITES)[number];

/** Weight sizes that exercise every branch of the allocator rule. */
const WEIGHT_SIZES = [8 * 1024, 24 * 1024, 100 * 1024, 700 * 1024, 1536 * 1024] as const;

interface Shape {
  devices: number;
  layers: number;
  experts: number;
  topk: number;
  tokens: number;
}

function shapeArb(suite: Suite): fc.Arbitrary<Shape> {
  if (suite === 'wide') {
    return fc.record({
      devices: fc.integer({ min: 2, max: 3 }),
      layers: fc.integer({ min: 1, max: 2 }),
      experts: fc.integer({ min: 16, max: 40 }),
      topk: fc.integer({ min: 8, max: 32 }),
      tokens: fc.integer({ min: 1, max: 3 }),
    }).map((s) => ({ ...s, topk: Math.min(s.topk, s.experts) }));
  }
  return fc.record({
    devices: suite === 'fill-once' ? fc.constant(1) : fc.integer({ min: 1, max: 3 }),
    layers: fc.integer({ min: 1, max: 3 }),
    experts: fc.integer({ min: 2, max: 10 }),
    topk: fc.integer({ min: 1, max: 4 }),
    tokens: fc.integer({ min: 1, max: 6 }),
  }).map((s) => ({ ...s, topk: Math.min(s.topk, s.experts) }));
}

function routesArb(shape: Shape): fc.Arbitrary<number[][][]> {
  const one = fc.uniqueArray(fc.integer({ min: 0, max: shape.experts - 1 }), {
    minLength: shape.topk,
    maxLength: shape.topk,
  });
  return fc.array(fc.array(one, { minLength: shape.layers, maxLength: shape.layers }), {
    minLength: shape.tokens,
    maxLength: shape.tokens,
  });
}

function scenarioFor(suite: Suite, shape: Shape): fc.Arbitrary<Scenario> {
  const perDevice = Math.ceil((shape.layers * shape.experts) / shape.devices);
  const budget = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 0, max: perDevice }) },
    { weight: 1, arbitrary: fc.constant<'auto'>('auto') },
  );
  const streaming = suite === 'streaming' ? fc.constant(true) : suite === 'general' ? fc.boolean() : fc.constant(false);
  // the shutdown suite wants swaps in flight when shutdown lands: a skewed heat file,
  // residents placed in natural order (so they are not the hottest), a swap check
  // every tick
  const swapHeavy = suite === 'shutdown';
  const heatRow = swapHeavy
    ? fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 40, max: 300 })), { minLength: shape.experts, maxLength: shape.experts })
    : fc.array(fc.nat({ max: 300 }), { minLength: shape.experts, maxLength: shape.experts });
  const heatArb = fc.array(heatRow, { minLength: shape.layers, maxLength: shape.layers });
  return fc
    .record({
      budgetExperts: fc.array(budget, { minLength: shape.devices, maxLength: shape.devices }),
      capacityKind: fc.constantFrom('plenty', 'plenty', 'equal-to-budget', 'smaller'),
      weight: fc.constantFrom(...WEIGHT_SIZES),
      ringCapacity: fc.integer({ min: 1, max: 4 }),
      loaders: fc.integer({ min: 1, max: 4 }),
      warmstart: swapHeavy
        ? fc.constantFrom<Scenario['warmstart']>('block', 'none', 'plan')
        : fc.constantFrom<Scenario['warmstart']>('plan', 'plan', 'block', 'none'),
      heat: swapHeavy ? heatArb : fc.option(heatArb, { nil: null }),
      streaming,
      wantSwaps: swapHeavy ? fc.constant(true) : fc.boolean(),
      reclaims:
        suite === 'fill-once'
          ? fc.constant(false)
          : swapHeavy
            ? fc.constant(true)
            : fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)),
      swapPeriod: swapHeavy ? fc.constant(1) : fc.integer({ min: 1, max: 4 }),
      decayPeriod: fc.integer({ min: 2, max: 64 }),
      routes: routesArb(shape),
      noRam: fc.uniqueArray(
        fc.record({ layer: fc.integer({ min: 0, max: shape.layers - 1 }), eid: fc.integer({ min: 0, max: shape.experts - 1 }) }),
        { maxLength: 3, selector: (k) => k.layer * 1000 + k.eid },
      ),
      refill: fc.option(fc.integer({ min: 0, max: shape.tokens - 1 }), { nil: -1 }),
      shutdownAt: suite === 'shutdown' ? shutdownPointArb(shape) : fc.option(shutdownPointArb(shape), { nil: null }),
      dense: fc.boolean(),
      uploadFails: fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 2 }),
      issueFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
      takeFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
      loadFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 2 }),
      stageFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
      spuriousWakeups: fc.integer({ min: 0, max: 3 }),
    })
    .map((r): Scenario => {
      const capacityExperts = r.budgetExperts.map((b) => {
        if (r.capacityKind === 'plenty' || b === 'auto') return null;
        return r.capacityKind === 'equal-to-budget' ? b : Math.max(0, b - 1);
      });
      return {
        devices: shape.devices,
        layers: shape.layers,
        experts: shape.experts,
        topk: shape.topk,
        ringCapacity: r.ringCapacity,
        budgetExperts: r.budgetExperts,
        capacityExperts,
        weightBytes: [r.weight, r.weight, r.weight],
        loaders: r.loaders,
        warmstart: r.warmstart,
        heatFile: r.streaming ? null : r.heat,
        streaming: r.streaming,
        wantSwaps: r.wantSwaps,
        reclaims: r.reclaims,
        swapPeriod: r.swapPeriod,
        decayPeriod: r.decayPeriod,
        routes: r.routes,
        noRam: r.noRam,
        refillAfterToken: r.refill,
        shutdownAt: r.shutdownAt,
        denseBytes: r.dense ? 64 * 1024 : 0,
        denseWhileGroupOpen: r.dense,
        faults: { uploadFails: r.uploadFails, issueFails: r.issueFails, takeFails: r.takeFails, loadFails: r.loadFails, stageFails: r.stageFails },
        spuriousWakeups: r.spuriousWakeups,
      };
    });
}

function shutdownPointArb(shape: Shape): fc.Arbitrary<ShutdownPoint> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<ShutdownPoint>({ phase: 'warmstart' }) },
    {
      weight: 4,
      arbitrary: fc.record({
        phase: fc.constant<'decode'>('decode'),
        token: fc.integer({ min: 0, max: shape.tokens - 1 }),
        layer: fc.integer({ min: 0, max: shape.layers - 1 }),
        groupOpen: fc.boolean(),
      }),
    },
  );
}

export function scenarioArb(suite: Suite): fc.Arbitrary<Scenario> {
  if (suite === 'mixed') return fc.oneof(...SUITES.filter((s) => s !== 'mixed').map((s) => scenarioArb(s)));
  return shapeArb(suite).chain((shape) => scenarioFor(suite, shape));
}

/** Schedules: mostly quiet (0), with preemptions sprinkled in. */
export function scheduleArb(maxLength = 400): fc.Arbitrary<number[]> {
  return fc.array(
    fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 7 }) }),
    // 'max': fast-check's default size keeps arrays to a handful of elements, and a
    // schedule must reach the decode loop to interleave anything there
    { maxLength, size: 'max' },
  );
}
