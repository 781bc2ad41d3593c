/**
 * The protocol's later features as scenario arbitraries (PROTOCOL.md's last section), for
 * the two suites aimed at them and, lightly, for the others:
 *  - gate: callers the engine does not control, racing the lifecycle: a stats thread
 *    during decode and teardown, an init racing the final shutdown, a second concurrent
 *    shutdown, the tier never started (the trunk alone, at DEAD);
 *  - replan: re-plan after the prompt (the layer and the table forms) over a small ring,
 *    so pairs stay pending and start at later ticks; the eviction ring polled, and small
 *    enough to drop; synchronous uploads; prefer-resident routing; stats and stats_mark.
 * Every other suite keeps them off (its traces stay what they were), but for `general`,
 * which draws them now and then.
 */
import fc from 'fast-check';
import { LATER_FEATURES_OFF } from '../src/engine/run_spec.js';
import type { Scenario } from '../model/scenario/scenario.js';

type Later = typeof LATER_FEATURES_OFF;

export interface LaterShape {
  readonly experts: number;
  readonly topk: number;
  readonly tokens: number;
}

function preferArb(shape: LaterShape): fc.Arbitrary<Scenario['prefer']> {
  if (shape.experts <= shape.topk) return fc.constant(null);
  return fc.record({
    window: fc.integer({ min: shape.topk + 1, max: Math.min(shape.experts, shape.topk + 3) }),
    keep: fc.integer({ min: 0, max: shape.topk - 1 }),
  });
}

function replanArb(shape: LaterShape): fc.Arbitrary<Scenario['replan']> {
  if (shape.tokens < 2) return fc.constant(null);
  return fc.record({
    form: fc.constantFrom<'layer' | 'table'>('layer', 'table', 'table'),
    maxSwaps: fc.integer({ min: 2, max: 4 }),
    prefill: fc.integer({
      min: Math.min(2, Math.floor(shape.tokens / 2)),
      max: Math.max(1, Math.floor(shape.tokens / 2)),
    }),
  });
}

/** `arb` with probability p (in twentieths), else `off`. */
function sometimes<T>(arb: fc.Arbitrary<T>, off: T, twentieths: number): fc.Arbitrary<T> {
  return fc.oneof({ weight: 20 - twentieths, arbitrary: fc.constant(off) }, { weight: twentieths, arbitrary: arb });
}

export function laterArb(suite: string, shape: LaterShape): fc.Arbitrary<Later> {
  const off = LATER_FEATURES_OFF;
  if (suite === 'gate') {
    return fc
      .record({
        ...constants(off),
        statsThread: sometimes(fc.integer({ min: 2, max: 8 }), 0, 17),
        initRacer: fc.boolean(),
        secondShutdown: fc.boolean(),
        tierOff: sometimes(fc.constant(true), false, 6),
      })
      .chain((r) =>
        // with the tier off, the second shutdown races the trunk's placement at DEAD: mostly
        r.tierOff
          ? sometimes(fc.constant(true), false, 18).map((secondShutdown) => ({ ...r, secondShutdown }))
          : fc.constant(r),
      );
  }
  if (suite === 'replan') {
    return fc.record({
      ...constants(off),
      syncUploads: fc.constantFrom(true, true, false),
      evictCapacity: fc.constantFrom(1, 1, 2),
      evictedPoll: fc.constantFrom(0, 0, 0, 1, 2),
      replan: sometimes(replanArb(shape), null, 19),
      prefer: sometimes(preferArb(shape), null, 10),
      statsThread: sometimes(fc.integer({ min: 1, max: 4 }), 0, 5),
    });
  }
  if (suite === 'general') {
    return fc.record({
      ...constants(off),
      syncUploads: sometimes(fc.constant(true), false, 3),
      evictedPoll: sometimes(fc.constant(2), 0, 3),
      replan: sometimes(replanArb(shape), null, 3),
      prefer: sometimes(preferArb(shape), null, 3),
      statsThread: sometimes(fc.integer({ min: 1, max: 3 }), 0, 3),
      initRacer: sometimes(fc.constant(true), false, 2),
    });
  }
  return fc.constant(off);
}

type Arbs<T> = { [K in keyof T]: fc.Arbitrary<T[K]> };

function constants(off: Later): Arbs<Later> {
  return {
    syncUploads: fc.constant(off.syncUploads),
    evictCapacity: fc.constant(off.evictCapacity),
    evictedPoll: fc.constant(off.evictedPoll),
    replan: fc.constant(off.replan),
    prefer: fc.constant(off.prefer),
    statsThread: fc.constant(off.statsThread),
    initRacer: fc.constant(off.initRacer),
    secondShutdown: fc.constant(off.secondShutdown),
    tierOff: fc.constant(off.tierOff),
  };
}
