/**
 * Scenarios and schedules as fast-check arbitraries.
 *
 * A schedule is an array of small integers (see model/rt/strategy.ts), so fast-check
 * shrinks it like any array: towards fewer and smaller choices, i.e. fewer preemptions.
 * Scenarios shrink towards fewer devices, layers, experts and tokens, no faults, no
 * heat file. Suites bias the generator towards one area while staying inside the same
 * space:
 *  - general: everything, lightly;
 *  - wide: several devices and wide top-k; full-groups: 32-row groups, all-set masks;
 *  - streaming: experts streamed through a RAM LRU, hot routes that earn swaps;
 *  - fill-once: one device whose arena never reclaims;
 *  - shutdown: swaps in flight when shutdown lands, from the caller or its own thread;
 *  - lifecycle: init faults at every stage, a second init, a second run that reads the
 *    first one's heat file (sometimes damaged), long decodes from a tick just before a
 *    decay period.
 */
import fc from 'fast-check';
import type { ShutdownPoint } from '../src/engine/driver.js';
import { NO_FAULTS, type FaultPlan } from '../src/engine/fault_sites.js';
import type { HeatFileDefect, Scenario } from '../model/scenario/scenario.js';
import { EXPERT_SHAPES, expertBytesOf } from './expert_shapes.js';

/** 'mixed' draws from every other suite: the quickest first look (mutation runs bail
 *  at the first violation, so it goes first). */
export const SUITES = ['mixed', 'general', 'wide', 'full-groups', 'streaming', 'fill-once', 'shutdown', 'lifecycle'] as const;
export type Suite = (typeof SUITES)[number];

interface Shape {
  devices: number;
  layers: number;
  experts: number;
  topk: number;
  tokens: number;
}

function shapeArb(suite: Suite): fc.Arbitrary<Shape> {
  const clamp = (s: Shape): Shape => ({ ...s, topk: Math.min(s.topk, s.experts) });
  if (suite === 'wide' || suite === 'full-groups') {
    const full = suite === 'full-groups';
    return fc
      .record({
        devices: fc.integer({ min: full ? 1 : 2, max: 3 }),
        layers: fc.integer({ min: 1, max: 2 }),
        experts: fc.integer({ min: full ? 32 : 16, max: full ? 64 : 40 }),
        topk: full ? fc.constantFrom(32, 32, 31, 33) : fc.integer({ min: 8, max: 32 }),
        tokens: fc.integer({ min: 1, max: 3 }),
      })
      .map(clamp);
  }
  const long = suite === 'lifecycle' || suite === 'streaming';
  return fc
    .record({
      devices: suite === 'fill-once' ? fc.constant(1) : fc.integer({ min: 1, max: 3 }),
      layers: fc.integer({ min: 1, max: 3 }),
      experts: fc.integer({ min: 2, max: 10 }),
      topk: fc.integer({ min: 1, max: 4 }),
      tokens: fc.integer({ min: 1, max: long ? 24 : 6 }),
    })
    .map(clamp);
}

/** Routes: uniform, or (hot) drawn mostly from a few experts so heat builds up and swaps
 *  are earned; full-groups routes the experts of one device only. */
function routesArb(shape: Shape, suite: Suite): fc.Arbitrary<number[][][]> {
  const pick = (eids: readonly number[]): fc.Arbitrary<number[]> =>
    fc.shuffledSubarray([...eids], { minLength: Math.min(shape.topk, eids.length), maxLength: Math.min(shape.topk, eids.length) });
  const all = Array.from({ length: shape.experts }, (_, e) => e);
  const hot = all.slice(0, Math.max(shape.topk, Math.ceil(shape.experts / 3)));
  const oneDevice = all.filter((e) => e % shape.devices === 0);
  const one =
    suite === 'full-groups'
      ? fc.oneof(pick(oneDevice.length >= shape.topk ? oneDevice : all), pick(all))
      : suite === 'streaming' || suite === 'lifecycle'
        ? fc.oneof({ weight: 3, arbitrary: pick(hot) }, { weight: 1, arbitrary: pick(all) })
        : pick(all);
  return fc.array(fc.array(one, { minLength: shape.layers, maxLength: shape.layers }), { minLength: shape.tokens, maxLength: shape.tokens });
}

function faultsArb(suite: Suite): fc.Arbitrary<FaultPlan> {
  const init = suite === 'lifecycle' ? 3 : 1;
  const initSite = fc.oneof({ weight: 12 - init * 2, arbitrary: fc.constant<number[]>([]) }, { weight: init, arbitrary: fc.constant([0]) });
  return fc.record({
    uploadFails: fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 2 }),
    issueFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    takeFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    loadFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 2 }),
    stageFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    allocFails: fc.oneof(initSite, { weight: 1, arbitrary: fc.constant([1]) }),
    syncFails: initSite,
    spawnFails: initSite,
  });
}

function shutdownPointArb(shape: Shape, ownThread: number): fc.Arbitrary<ShutdownPoint> {
  const thread = fc.oneof({ weight: 10 - ownThread, arbitrary: fc.constant<'caller'>('caller') }, { weight: ownThread, arbitrary: fc.constant<'own'>('own') });
  return fc.oneof(
    { weight: 2, arbitrary: fc.record({ phase: fc.constantFrom<'plan' | 'warmstart' | 'fill'>('plan', 'warmstart', 'warmstart', 'fill'), thread }) },
    {
      weight: 4,
      arbitrary: fc.record({
        phase: fc.constant<'decode'>('decode'),
        token: fc.integer({ min: 0, max: shape.tokens - 1 }),
        layer: fc.integer({ min: 0, max: shape.layers - 1 }),
        groupOpen: fc.boolean(),
        thread,
      }),
    },
  );
}

function heatArb(shape: Shape, skewed: boolean): fc.Arbitrary<number[][]> {
  const h = skewed ? fc.oneof(fc.constant(0), fc.integer({ min: 40, max: 300 })) : fc.nat({ max: 300 });
  return fc.array(fc.array(h, { minLength: shape.experts, maxLength: shape.experts }), { minLength: shape.layers, maxLength: shape.layers });
}

/** The parts of a scenario a suite biases; the rest is drawn the same way everywhere. */
function suiteParts(suite: Suite, shape: Shape) {
  const swapHeavy = suite === 'shutdown';
  const lifecycle = suite === 'lifecycle';
  return {
    warmstart: swapHeavy
      ? fc.constantFrom<Scenario['warmstart']>('block', 'none', 'plan')
      : fc.constantFrom<Scenario['warmstart']>('plan', 'plan', 'block', 'none'),
    heat: swapHeavy ? heatArb(shape, true) : fc.option(heatArb(shape, false), { nil: null, freq: lifecycle ? 2 : 5 }),
    heatFileDefect: lifecycle
      ? fc.constantFrom<HeatFileDefect>('none', 'none', 'bad-magic', 'wrong-shape', 'truncated')
      : fc.constant<HeatFileDefect>('none'),
    streaming: suite === 'streaming' ? fc.constant(true) : suite === 'general' ? fc.boolean() : fc.constant(false),
    wantSwaps: swapHeavy || suite === 'streaming' ? fc.constant(true) : fc.boolean(),
    reclaims: suite === 'fill-once' ? fc.constant(false) : swapHeavy ? fc.constant(true) : fc.constantFrom(true, true, false),
    swapPeriod: swapHeavy ? fc.constant(1) : fc.integer({ min: 1, max: 4 }),
    decayPeriod: lifecycle ? fc.constantFrom(4, 16, 1024) : fc.integer({ min: 2, max: 64 }),
    startTick: lifecycle ? fc.constantFrom(0, 1021, 1022, 1023) : fc.constant(0),
    shutdownAt:
      suite === 'shutdown' ? shutdownPointArb(shape, 5) : fc.option(shutdownPointArb(shape, lifecycle ? 5 : 2), { nil: null }),
    initTwice: lifecycle ? fc.boolean() : fc.constant(false),
    runs: lifecycle ? fc.constantFrom<1 | 2>(1, 2, 2) : fc.constant<1 | 2>(1),
  };
}

function scenarioFor(suite: Suite, shape: Shape): fc.Arbitrary<Scenario> {
  const perDevice = Math.ceil((shape.layers * shape.experts) / shape.devices);
  const full = suite === 'full-groups';
  const budget = full
    ? fc.constant(perDevice)
    : fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: perDevice }) }, { weight: 1, arbitrary: fc.constant<'auto'>('auto') });
  return fc
    .record({
      ...suiteParts(suite, shape),
      budgetExperts: fc.array(budget, { minLength: shape.devices, maxLength: shape.devices }),
      capacityKind: fc.constantFrom('plenty', 'plenty', 'equal-to-budget', 'smaller'),
      expert: fc.constantFrom(...EXPERT_SHAPES),
      ringCapacity: fc.integer({ min: 1, max: full ? 48 : 4 }),
      loaders: fc.integer({ min: 1, max: 4 }),
      routes: routesArb(shape, suite),
      noRam: fc.uniqueArray(
        fc.record({ layer: fc.integer({ min: 0, max: shape.layers - 1 }), eid: fc.integer({ min: 0, max: shape.experts - 1 }) }),
        { maxLength: 3, selector: (k) => k.layer * 1000 + k.eid },
      ),
      refill: fc.option(fc.integer({ min: 0, max: shape.tokens - 1 }), { nil: -1 }),
      dense: fc.boolean(),
      faults: full ? fc.constant(NO_FAULTS) : faultsArb(suite),
      ramShort: fc.integer({ min: 0, max: 20 }),
      spuriousWakeups: fc.integer({ min: 0, max: 3 }),
    })
    .map((r): Scenario => {
      const capacityExperts = r.budgetExperts.map((b) => {
        if (r.capacityKind === 'plenty' || b === 'auto') return null;
        return r.capacityKind === 'equal-to-budget' ? b : Math.max(0, b - 1);
      });
      // now and then a RAM too small for full residency, which init must refuse unless streaming
      const ramCapacity = r.streaming || r.ramShort === 0 ? Math.max(1, shape.experts - 1) : shape.experts;
      return {
        devices: shape.devices,
        layers: shape.layers,
        experts: shape.experts,
        topk: shape.topk,
        ringCapacity: r.ringCapacity,
        budgetExperts: r.budgetExperts,
        capacityExperts,
        expertFormat: r.expert.format,
        groupSize: r.expert.group,
        ...expertBytesOf(r.expert),
        ramCapacity,
        loaders: r.loaders,
        warmstart: r.warmstart,
        heatFile: r.streaming ? null : r.heat,
        heatFileDefect: r.heatFileDefect,
        streaming: r.streaming,
        wantSwaps: r.wantSwaps,
        reclaims: r.reclaims,
        swapPeriod: r.swapPeriod,
        decayPeriod: r.decayPeriod,
        startTick: r.startTick,
        routes: r.routes,
        noRam: r.noRam,
        refillAfterToken: r.refill,
        shutdownAt: r.shutdownAt,
        denseBytes: r.dense ? 64 * 1024 : 0,
        denseWhileGroupOpen: r.dense,
        initTwice: r.initTwice,
        runs: r.runs,
        faults: r.faults,
        spuriousWakeups: r.spuriousWakeups,
      };
    });
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
