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
 *    decay period;
 *  - gate and replan: the protocol's later features (later_arbs.ts): callers racing the
 *    lifecycle gate; re-plan, the eviction ring, synchronous uploads, prefer-resident
 *    routing.
 */
import fc from 'fast-check';
import type { ShutdownPoint } from '../src/engine/driver.js';
import { NO_FAULTS, type FaultPlan } from '../src/engine/fault_sites.js';
import { laterArb } from './later_arbs.js';
import { drainArb } from './drain_arbs.js';
import { CARELESS_HABITS, type CarelessHabit } from '../src/engine/careless.js';
import {
  SAMPLED_HEAT_FILE_DEFECTS,
  type HeatFileDefect,
  type Scenario,
  type TrunkMatrix,
} from '../model/scenario/scenario.js';
import { EXPERT_SHAPES, expertBytesOf } from './expert_shapes.js';

/** 'mixed' draws from every other suite: the quickest first look (mutation runs bail
 *  at the first violation, so it goes first); the lifecycle gate's callers and the
 *  later features next, as their races need the most runs. */
export const SUITES = [
  'mixed',
  'gate',
  'replan',
  'general',
  'wide',
  'full-groups',
  'streaming',
  'fill-once',
  'shutdown',
  'lifecycle',
  'drain',
] as const;
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
  if (suite === 'full-groups') {
    // at least 32 experts homed on every device, so one device's group can hold 32 rows
    return fc
      .record({
        devices: fc.integer({ min: 1, max: 3 }),
        layers: fc.integer({ min: 1, max: 2 }),
        spare: fc.integer({ min: 0, max: 4 }),
        topk: fc.constantFrom(32, 32, 32, 31, 33),
        tokens: fc.integer({ min: 1, max: 3 }),
      })
      .map((s) =>
        clamp({
          devices: s.devices,
          layers: s.layers,
          experts: 32 * s.devices + s.spare,
          topk: s.topk,
          tokens: s.tokens,
        }),
      );
  }
  if (suite === 'wide') {
    return fc
      .record({
        devices: fc.integer({ min: 2, max: 3 }),
        layers: fc.integer({ min: 1, max: 2 }),
        experts: fc.integer({ min: 16, max: 40 }),
        topk: fc.integer({ min: 8, max: 32 }),
        tokens: fc.integer({ min: 1, max: 3 }),
      })
      .map(clamp);
  }
  if (suite === 'streaming') {
    // long decodes over few devices: newcomers must out-heat the early residents
    return fc
      .record({
        devices: fc.integer({ min: 1, max: 2 }),
        layers: fc.integer({ min: 1, max: 2 }),
        experts: fc.integer({ min: 4, max: 10 }),
        topk: fc.constantFrom(1, 1, 2),
        tokens: fc.integer({ min: 12, max: 32 }),
      })
      .map(clamp);
  }
  const tokens = suite === 'lifecycle' ? 24 : suite === 'shutdown' || suite === 'replan' ? 10 : 6;
  const small = suite === 'gate' || suite === 'replan';
  return fc
    .record({
      devices: suite === 'fill-once' ? fc.constant(1) : fc.integer({ min: 1, max: small ? 2 : 3 }),
      layers: fc.integer({ min: 1, max: small ? 2 : 3 }),
      experts: fc.integer({ min: suite === 'replan' ? 4 : small ? 3 : 2, max: small ? 8 : 10 }),
      topk: fc.integer({ min: 1, max: small ? 2 : 4 }),
      tokens: fc.integer({ min: suite === 'replan' ? 6 : 1, max: tokens }),
    })
    .map(clamp);
}

/**
 * Routes: uniform; or in two phases, the first third of the tokens over the lower experts
 * and the rest over the upper ones, so the early residents cool while newcomers heat up
 * and the admission rule earns swaps; full-groups routes one device's experts.
 */
function routesArb(shape: Shape, suite: Suite): fc.Arbitrary<number[][][]> {
  const pick = (eids: readonly number[]): fc.Arbitrary<number[]> =>
    fc.shuffledSubarray([...eids], {
      minLength: Math.min(shape.topk, eids.length),
      maxLength: Math.min(shape.topk, eids.length),
    });
  const all = Array.from({ length: shape.experts }, (_, e) => e);
  const tokens = (per: (t: number) => fc.Arbitrary<number[]>): fc.Arbitrary<number[][][]> =>
    fc.tuple(
      ...Array.from({ length: shape.tokens }, (_, t) =>
        fc.array(per(t), { minLength: shape.layers, maxLength: shape.layers }),
      ),
    );
  if (suite === 'full-groups') {
    const dev = all.filter((e) => e % shape.devices === 0);
    return tokens(() =>
      fc.oneof(
        { weight: 4, arbitrary: pick(dev.length >= shape.topk ? dev : all) },
        { weight: 1, arbitrary: pick(all) },
      ),
    );
  }
  const half = Math.max(shape.topk, Math.floor(shape.experts / 2));
  const lower = all.slice(0, half);
  // streaming: a small hot set after the split, so newcomers out-heat the early residents
  const hot = suite === 'streaming' ? Math.max(shape.topk, 2) : half;
  const upper = all.slice(Math.max(0, shape.experts - hot));
  const split = suite === 'streaming' ? Math.ceil(shape.tokens / 5) : Math.ceil(shape.tokens / 3);
  // replan: the prompt routes the upper experts, which the natural-order residents are not
  const phased = tokens((t) => pick(t < split !== (suite === 'replan') ? lower : upper));
  const uniform = tokens(() => pick(all));
  const bias =
    suite === 'streaming' ? 9 : suite === 'replan' ? 6 : suite === 'lifecycle' || suite === 'shutdown' ? 3 : 1;
  return fc.oneof({ weight: 3, arbitrary: uniform }, { weight: bias, arbitrary: phased });
}

function faultsArb(suite: Suite): fc.Arbitrary<FaultPlan> {
  // a streaming run's promotions stop on a device once an upload fails there: fewer faults
  const uploads =
    suite === 'streaming' || suite === 'shutdown'
      ? fc.oneof(
          { weight: 9, arbitrary: fc.constant<number[]>([]) },
          { weight: 1, arbitrary: fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 1 }) },
        )
      : fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 2 });
  // init's stages fail now and then (in the lifecycle suite more often): the first call,
  // or for the host arrays the second one (the ring after the slot table)
  const per = suite === 'lifecycle' ? 3 : suite === 'streaming' || suite === 'shutdown' || suite === 'replan' ? 0 : 1;
  const initSite = (calls: number): fc.Arbitrary<number[]> =>
    fc.oneof(
      { weight: 40, arbitrary: fc.constant<number[]>([]) },
      ...Array.from({ length: calls }, (_, i) => ({ weight: per, arbitrary: fc.constant<number[]>([i]) })),
    );
  return fc.record({
    uploadFails: uploads,
    issueFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    takeFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    loadFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 2 }),
    stageFails: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 1 }),
    allocFails: initSite(2),
    syncFails: initSite(1),
    spawnFails: initSite(1),
  });
}

/**
 * Where shutdown lands. The shutdown suite aims at the hard places: while loaders run,
 * and right after a layer-0 issue, when the tick may just have handed the uploader a swap
 * that now waits for the open group.
 */
function shutdownPointArb(shape: Shape, ownThread: number, hunting: boolean): fc.Arbitrary<ShutdownPoint> {
  const thread = fc.oneof(
    { weight: 10 - ownThread, arbitrary: fc.constant<'caller'>('caller') },
    { weight: ownThread, arbitrary: fc.constant<'own'>('own') },
  );
  const early = fc.record({
    phase: fc.constantFrom<'plan' | 'warmstart' | 'fill'>('plan', 'warmstart', 'warmstart', 'fill'),
    thread,
  });
  const anywhere = fc.record({
    phase: fc.constant<'decode'>('decode'),
    token: fc.integer({ min: 0, max: shape.tokens - 1 }),
    layer: fc.integer({ min: 0, max: shape.layers - 1 }),
    groupOpen: fc.boolean(),
    thread,
  });
  if (!hunting) return fc.oneof({ weight: 2, arbitrary: early }, { weight: 4, arbitrary: anywhere });
  const afterTick = fc.record({
    phase: fc.constant<'decode'>('decode'),
    token: fc.integer({ min: 0, max: shape.tokens - 1 }),
    layer: fc.constant(0),
    groupOpen: fc.constant(true),
    thread,
  });
  return fc.oneof(
    { weight: 3, arbitrary: early },
    { weight: 3, arbitrary: anywhere },
    { weight: 4, arbitrary: afterTick },
  );
}

/** Cold lower experts (placed first in natural order), hot upper ones: the first tick swaps. */
function rampHeatArb(shape: Shape): fc.Arbitrary<number[][]> {
  const row = fc.tuple(
    ...Array.from({ length: shape.experts }, (_, e) =>
      e < shape.experts / 2 ? fc.constant(0) : fc.integer({ min: 100, max: 300 }),
    ),
  );
  return fc.array(row, { minLength: shape.layers, maxLength: shape.layers });
}

/**
 * Payload bytes at and around the device allocator's edges (src/tier/sizes.ts: the 8 KiB
 * grain and its 1/16 padding, 512 KiB, 1 MiB, 2 MiB), so trunk matrices of mixed sizes
 * differ in value per charged byte and the placer's order is exercised.
 */
const ALLOCATOR_EDGES = [1, 4096, 7680, 7681, 8191, 8192, 8193, 24576, 65536, 122880, 524288, 524289, 1048577];

/** Half the runs: one uniform matrix per device (denseBytes); else 2-6 of mixed sizes. */
function trunkArb(): fc.Arbitrary<TrunkMatrix[]> {
  const matrix = fc.record({
    weightBytes: fc.constantFrom(...ALLOCATOR_EDGES),
    scaleBytes: fc.constantFrom(0, 4, 512, 8193),
  });
  return fc.oneof(fc.constant<TrunkMatrix[]>([]), fc.array(matrix, { minLength: 2, maxLength: 6 }));
}

/** `arb` with probability p, else null. */
function maybe<T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | null> {
  const w = Math.round(p * 20);
  return fc.oneof({ weight: 20 - w, arbitrary: fc.constant(null) }, { weight: w, arbitrary: arb });
}

function heatArb(shape: Shape, skewed: boolean): fc.Arbitrary<number[][]> {
  const h = skewed ? fc.oneof(fc.constant(0), fc.integer({ min: 40, max: 300 })) : fc.nat({ max: 300 });
  return fc.array(fc.array(h, { minLength: shape.experts, maxLength: shape.experts }), {
    minLength: shape.layers,
    maxLength: shape.layers,
  });
}

/**
 * The shutdown suite's aims: while loaders are still loading (after the plan, before
 * they are joined) or the fill is being waited for; with a swap parked on the open group
 * (natural-order residents, skewed heat, shutdown right after a layer-0 issue, often
 * from its own thread); while note_block waits on a full ring or plan_fill plans
 * (blocked: its own thread, started before the warmstart); racing the decode thread's
 * issue, dense GEMVs and take (its own thread, started before a layer); or anywhere.
 */
type ShutdownAim = 'loaders' | 'parked' | 'blocked' | 'racing' | 'anywhere';

/** Where a suite's scenarios shut down early (null: only at the end of the run). */
function shutdownAtArb(suite: Suite, shape: Shape, aim: ShutdownAim): fc.Arbitrary<Scenario['shutdownAt']> {
  if (suite === 'full-groups') return fc.constant(null);
  if (suite === 'gate') {
    // with the group open: the decode thread's take meets the teardown
    const open = fc.record({
      phase: fc.constant<'decode'>('decode'),
      token: fc.integer({ min: 0, max: shape.tokens - 1 }),
      layer: fc.integer({ min: 0, max: shape.layers - 1 }),
      groupOpen: fc.constant(true),
      thread: fc.constantFrom<'caller' | 'own'>('caller', 'own'),
    });
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 4, arbitrary: open },
      { weight: 1, arbitrary: shutdownPointArb(shape, 5, false) },
    );
  }
  if (suite !== 'shutdown') {
    return maybe(shutdownPointArb(shape, suite === 'lifecycle' ? 5 : 2, false), suite === 'streaming' ? 0.15 : 0.5);
  }
  switch (aim) {
    case 'loaders':
      return fc.oneof(
        fc.record({
          phase: fc.constant<'warmstart'>('warmstart'),
          thread: fc.constantFrom<'caller' | 'own'>('caller', 'own'),
        }),
        // its own thread from just before fill_wait: racing the fill, the RAM hand-back and the count
        fc.record({ phase: fc.constant<'fill'>('fill'), thread: fc.constant<'own'>('own') }),
      );
    case 'parked':
      return fc.record({
        phase: fc.constant<'decode'>('decode'),
        // the first tick, where natural-order residents meet the heat file's hottest
        token: fc.constant(0),
        layer: fc.constant(0),
        groupOpen: fc.constant(true),
        thread: fc.constantFrom<'caller' | 'own'>('caller', 'own', 'own'),
      });
    case 'blocked':
      return fc.record({ phase: fc.constant<'plan'>('plan'), thread: fc.constant<'own'>('own') });
    case 'racing':
      return fc.record({
        phase: fc.constant<'decode'>('decode'),
        token: fc.integer({ min: 0, max: shape.tokens - 1 }),
        layer: fc.integer({ min: 0, max: shape.layers - 1 }),
        groupOpen: fc.boolean(),
        thread: fc.constant<'own'>('own'),
      });
    case 'anywhere':
      return shutdownPointArb(shape, 6, true);
  }
}

/** The parts of a scenario a suite biases; the rest is drawn the same way everywhere. */
function suiteParts(suite: Suite, shape: Shape, aim: ShutdownAim) {
  const swapHeavy = suite === 'shutdown';
  const lifecycle = suite === 'lifecycle';
  const full = suite === 'full-groups';
  return {
    // residents placed in natural order, so they are not the hottest and swaps follow
    warmstart: swapHeavy
      ? aim === 'loaders'
        ? fc.constant<Scenario['warmstart']>('plan')
        : aim === 'parked'
          ? fc.constant<Scenario['warmstart']>('block')
          : aim === 'blocked'
            ? fc.constantFrom<Scenario['warmstart']>('block', 'block', 'plan')
            : fc.constantFrom<Scenario['warmstart']>('block', 'block', 'none', 'plan')
      : full
        ? fc.constant<Scenario['warmstart']>('plan')
        : suite === 'replan'
          ? fc.constantFrom<Scenario['warmstart']>('plan', 'block')
          : fc.constantFrom<Scenario['warmstart']>('plan', 'plan', 'block', 'none'),
    heat: swapHeavy
      ? aim === 'parked'
        ? rampHeatArb(shape)
        : heatArb(shape, true)
      : full
        ? fc.constant(null)
        : lifecycle
          ? maybe(heatArb(shape, false), 0.75)
          : maybe(heatArb(shape, false), 0.5),
    // the kinds of file the reader must tell apart (SAMPLED_HEAT_FILE_DEFECTS), well formed most often
    heatFileDefect: lifecycle
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constant<HeatFileDefect>('none') },
          { weight: 7, arbitrary: fc.constantFrom(...SAMPLED_HEAT_FILE_DEFECTS.filter((d) => d !== 'none')) },
        )
      : suite === 'general'
        ? fc.oneof(
            { weight: 1, arbitrary: fc.constant<HeatFileDefect>('none') },
            { weight: 1, arbitrary: fc.constantFrom(...SAMPLED_HEAT_FILE_DEFECTS.filter((d) => d !== 'none')) },
          )
        : fc.constant<HeatFileDefect>('none'),
    streaming: suite === 'streaming' ? fc.constant(true) : suite === 'general' ? fc.boolean() : fc.constant(false),
    wantSwaps: swapHeavy || suite === 'streaming' || suite === 'replan' ? fc.constant(true) : fc.boolean(),
    reclaims:
      suite === 'fill-once'
        ? fc.constant(false)
        : suite === 'replan'
          ? fc.constant(true)
          : swapHeavy || suite === 'streaming'
            ? fc.constantFrom(true, true, true, true, true, true, true, true, true, false)
            : fc.constantFrom(true, true, false),
    swapPeriod: swapHeavy ? fc.constant(1) : fc.integer({ min: 1, max: 4 }),
    decayPeriod: lifecycle ? fc.constantFrom(4, 16, 1024) : fc.integer({ min: 2, max: 64 }),
    startTick: lifecycle ? fc.constantFrom(0, 1021, 1022, 1023) : fc.constant(0),
    shutdownAt: shutdownAtArb(suite, shape, aim),
    initTwice: lifecycle ? fc.boolean() : fc.constant(false),
    // a careless engine, within the contract, now and then (the general and lifecycle suites)
    careless:
      lifecycle || suite === 'general'
        ? fc.oneof(
            { weight: 1, arbitrary: fc.constant<CarelessHabit[]>([]) },
            { weight: 1, arbitrary: fc.subarray([...CARELESS_HABITS], { minLength: 1 }) },
          )
        : fc.constant<CarelessHabit[]>([]),
    runs: lifecycle ? fc.constantFrom<1 | 2>(1, 2, 2) : fc.constant<1 | 2>(1),
  };
}

function scenarioFor(suite: Suite, shape: Shape): fc.Arbitrary<Scenario> {
  if (suite === 'shutdown') {
    return fc
      .constantFrom<ShutdownAim>(
        'loaders',
        'loaders',
        'parked',
        'parked',
        'parked',
        'parked',
        'blocked',
        'racing',
        'racing',
        'anywhere',
      )
      .chain((aim) => scenarioAimed(suite, shape, aim));
  }
  return scenarioAimed(suite, shape, 'anywhere');
}

function scenarioAimed(suite: Suite, shape: Shape, aim: ShutdownAim): fc.Arbitrary<Scenario> {
  const perDevice = Math.ceil((shape.layers * shape.experts) / shape.devices);
  const full = suite === 'full-groups';
  // streaming promotes only against residents: at least one per device, never everything
  const budget = full
    ? fc.constant(perDevice)
    : suite === 'streaming'
      ? fc.constantFrom(1, 1, Math.max(1, Math.ceil(perDevice / 2)))
      : suite === 'shutdown' || suite === 'replan'
        ? fc.integer({ min: 1, max: Math.max(1, perDevice - 1) })
        : fc.oneof(
            { weight: 5, arbitrary: fc.integer({ min: 0, max: perDevice }) },
            { weight: 1, arbitrary: fc.constant<'auto'>('auto') },
          );
  return fc
    .record({
      ...suiteParts(suite, shape, aim),
      budgetExperts: fc.array(budget, { minLength: shape.devices, maxLength: shape.devices }),
      capacityKind: full
        ? fc.constant('plenty')
        : suite === 'streaming'
          ? fc.constantFrom('plenty', 'plenty', 'plenty', 'equal-to-budget', 'smaller')
          : fc.constantFrom('plenty', 'plenty', 'equal-to-budget', 'smaller'),
      expert: fc.constantFrom(...EXPERT_SHAPES),
      ringCapacity:
        aim === 'blocked' || suite === 'replan' ? fc.constant(1) : fc.integer({ min: 1, max: full ? 48 : 4 }),
      loaders: fc.integer({ min: 1, max: 4 }),
      routes: routesArb(shape, suite),
      noRam: fc.uniqueArray(
        fc.record({
          layer: fc.integer({ min: 0, max: shape.layers - 1 }),
          eid: fc.integer({ min: 0, max: shape.experts - 1 }),
        }),
        { maxLength: 3, selector: (k) => k.layer * 1000 + k.eid },
      ),
      refill: fc.option(fc.integer({ min: 0, max: shape.tokens - 1 }), { nil: -1 }),
      // a dense trunk takes device budget first: rarely in streaming, where promotion needs room
      dense: full
        ? fc.constant(false)
        : aim === 'parked' || aim === 'racing'
          ? fc.constant(true)
          : suite === 'shutdown'
            ? fc.constantFrom(true, true, false)
            : suite === 'streaming'
              ? fc.constantFrom(false, false, false, true)
              : fc.boolean(),
      // mixed sizes, so the placement's order by value per byte matters (dense runs only)
      trunk: full ? fc.constant<TrunkMatrix[]>([]) : trunkArb(),
      faults: full ? fc.constant(NO_FAULTS) : faultsArb(suite),
      ramShort: fc.integer({ min: 0, max: 20 }),
      // now and then a configuration init must refuse: int8 experts with a scale group, or
      // a heat file in streaming mode (1 and 2; anything else: a valid configuration)
      misconfig: fc.integer({ min: 0, max: 24 }),
      // racing: a spurious wakeup is the only thing that can end shutdown's waits early
      spuriousWakeups: aim === 'racing' ? fc.constant(3) : fc.integer({ min: 0, max: 3 }),
      later: laterArb(suite, shape),
    })
    .map((r): Scenario => {
      const capacityExperts = r.budgetExperts.map((b) => {
        if (r.capacityKind === 'plenty' || b === 'auto') return null;
        return r.capacityKind === 'equal-to-budget' ? b : Math.max(0, b - 1);
      });
      // now and then a RAM too small for full residency, which init must refuse unless streaming
      const steady = suite === 'shutdown' || suite === 'full-groups' || suite === 'replan';
      const short = r.ramShort === 0 && !steady;
      const ramCapacity = r.streaming || short ? Math.max(1, shape.experts - 1) : shape.experts;
      const misconfigured = steady ? 0 : r.misconfig;
      const groupedInt8 = misconfigured === 1 && r.expert.format === 1;
      return {
        ...r.later,
        devices: shape.devices,
        layers: shape.layers,
        experts: shape.experts,
        topk: shape.topk,
        ringCapacity: r.ringCapacity,
        budgetExperts: r.budgetExperts,
        capacityExperts,
        expertFormat: r.expert.format,
        groupSize: groupedInt8 ? 32 : r.expert.group,
        ...expertBytesOf(r.expert),
        ramCapacity,
        loaders: r.loaders,
        warmstart: r.warmstart,
        heatFile: r.streaming && misconfigured !== 2 ? null : r.heat,
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
        trunk: r.dense ? r.trunk : [],
        initTwice: r.initTwice,
        careless: r.careless,
        runs: r.runs,
        faults: r.faults,
        spuriousWakeups: r.spuriousWakeups,
      };
    });
}

export function scenarioArb(suite: Suite): fc.Arbitrary<Scenario> {
  // drain is left out of mixed, so that mixed's seeded scenarios stay what they were
  if (suite === 'mixed')
    return fc.oneof(...SUITES.filter((s) => s !== 'mixed' && s !== 'drain').map((s) => scenarioArb(s)));
  if (suite === 'drain') return drainArb(scenarioArb('replan'));
  return shapeArb(suite).chain((shape) => scenarioFor(suite, shape));
}

/**
 * Schedules: mostly quiet (0), with preemptions sprinkled in. The shutdown suite
 * preempts as often as not: its races live in the few steps around an issue.
 */
export function scheduleArb(maxLength = 400, suite?: Suite | 'scenario'): fc.Arbitrary<number[]> {
  const preempt = suite === 'shutdown' ? 3 : 2;
  return fc.array(
    fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: preempt, arbitrary: fc.integer({ min: 1, max: 7 }) }),
    // 'max': fast-check's default size keeps arrays to a handful of elements, and a
    // schedule must reach the decode loop to interleave anything there
    { maxLength, size: 'max' },
  );
}
