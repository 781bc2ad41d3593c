/**
 * Hand-made faulty traces for the refinement's SPEC-* properties and for lost wakeups:
 * each one a main thread that calls the tier's own code where it can and commits exactly
 * one divergence from the protocol, of the family its name gives. A hand-made call goes
 * through the lifecycle gate as the tier's calls do (`inGate`), so that only its own
 * divergence shows.
 */
import type { Gen, RamRef, TierCall, TierReturn } from '../../src/ops.js';
import { RING_ENTRY_BYTES, SLOT_BYTES } from '../../src/tier/config.js';
import { enter, enterExclusive, leave, leaveExclusive } from '../../src/tier/gate.js';
import { decodeHeat } from '../../src/tier/heat_file.js';
import { uploaderThread } from '../../src/tier/uploader.js';
import { take } from '../../src/tier/group.js';
import { planFill } from '../../src/tier/plan.js';
import { shutdown } from '../../src/tier/shutdown.js';
import { resetTables, slotOf } from '../../src/tier/state.js';
import { issue } from '../../src/tier/group.js';
import type { Tier } from '../../src/tier/tier.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import type { SimulatedWorld } from '../../model/sim_engine/sim_world.js';

type Main = (tier: Tier, world: SimulatedWorld) => Gen<void>;
export interface FaultCase {
  readonly main: Main;
  readonly scenario?: Partial<Scenario>;
}

const LOCK = { k: 'lock' } as const;
const UNLOCK = { k: 'unlock' } as const;
const call = (c: TierCall) => ({ k: 'call', call: c }) as const;
const ret = (r: TierReturn) => ({ k: 'ret', ret: r }) as const;

function* ramOf(layer: number, eid: number): Gen<RamRef | null> {
  return (yield { k: 'ramOf', layer, eid }) as RamRef | null;
}

/** A critical section that reads and changes nothing. */
function* lockedNothing(): Gen<void> {
  yield LOCK;
  yield UNLOCK;
}

/** `body` inside the gate's expert door, as the tier's calls run theirs. */
function* inGate<T>(tier: Tier, body: Gen<T>): Gen<T> {
  yield* enter(tier.st.gate, 'expert');
  const value = yield* body;
  yield* leave(tier.st.gate);
  return value;
}

/** init by hand: the tier's stages, the heat file loaded halved or not, the uploader given. */
function* handInit(tier: Tier, halve: boolean, uploader: () => Gen<void>): Gen<void> {
  const st = tier.st;
  yield call({ fn: 'init' });
  yield* enterExclusive(st.gate, 'DEAD');
  const slots = yield { k: 'hostAlloc', what: 'slots', bytes: st.cfg.layers * st.cfg.experts * SLOT_BYTES };
  const ring = yield { k: 'hostAlloc', what: 'ring', bytes: st.cfg.ringCapacity * RING_ENTRY_BYTES };
  yield { k: 'syncInit' };
  yield LOCK;
  resetTables(st);
  st.hostArrays = [slots as never, ring as never];
  st.budget.forEach((_, d) => (st.budget[d] = (st.cfg.budgetBytes[d] as number) ?? 0));
  if (st.cfg.heatFile) {
    const heat = decodeHeat((yield { k: 'readHeat' }) as Uint8Array | null, st.cfg.layers, st.cfg.experts);
    for (const row of st.slots) for (const x of row) x.heat = (heat?.[x.layer]?.[x.eid] ?? 0) >>> (halve ? 1 : 0);
  }
  st.active = true;
  yield { k: 'spawn', name: 'uploader', body: uploader };
  yield UNLOCK;
  yield* leaveExclusive(st.gate, 'LIVE');
  yield ret({ fn: 'init', value: { state: 'active' } });
}

export const SPEC_FAULTS: Record<string, FaultCase> = {
  // init claims success without allocating anything
  'SPEC-INIT': {
    *main() {
      yield call({ fn: 'init' });
      yield ret({ fn: 'init', value: { state: 'active' } });
    },
  },
  // plan_fill plans right, then hands the loaders the plan in another order
  'SPEC-PLAN': {
    scenario: { budgetExperts: [3, 3] },
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'plan_fill' });
      const keys = yield* inGate(tier, planFill(tier.st));
      yield ret({ fn: 'plan_fill', value: [...keys].reverse() });
    },
  },
  // fill_wait reports a stop that never happened
  'SPEC-FILL': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'fill_wait' });
      yield* inGate(
        tier,
        (function* () {
          yield LOCK;
          yield UNLOCK;
        })(),
      );
      yield ret({ fn: 'fill_wait', value: 'stopped' });
    },
  },
  // note forgets to enqueue (#1391: nothing promoted at decode time)
  'SPEC-ENQUEUE': {
    *main(tier) {
      yield* tier.init();
      const ram = yield* ramOf(0, 0);
      yield call({ fn: 'note', layer: 0, eid: 0, ram });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      const slot = slotOf(tier.st, 0, 0);
      slot.heat++;
      slot.ram = ram;
      yield UNLOCK;
      yield* leave(tier.st.gate);
      yield ret({ fn: 'note', value: false });
    },
  },
  // an LFRU round that ignores the admission rule: no swap though hot beats cold
  'SPEC-ADMISSION': {
    scenario: {
      devices: 1,
      budgetExperts: [1],
      capacityExperts: [null],
      swapPeriod: 1,
      wantSwaps: true,
      reclaims: true,
    },
    *main(tier) {
      yield* tier.init();
      yield* tier.noteBlock(0, 0, yield* ramOf(0, 0));
      yield* tier.fillWait();
      for (let i = 0; i < 6; i++) yield* tier.note(0, 1, yield* ramOf(0, 1));
      const route = (yield { k: 'route', token: 0, layer: 0 }) as {
        token: number;
        layer: number;
        eids: number[];
        input: never;
      };
      yield* issueWithoutTick(tier, route, false);
    },
  },
  // a decay period passes and nothing halves
  'SPEC-DECAY': {
    scenario: { devices: 1, budgetExperts: [0], capacityExperts: [null], decayPeriod: 1, wantSwaps: false },
    *main(tier) {
      yield* tier.init();
      for (let i = 0; i < 3; i++) yield* tier.note(0, 1, yield* ramOf(0, 1));
      const route = (yield { k: 'route', token: 0, layer: 0 }) as {
        token: number;
        layer: number;
        eids: number[];
        input: never;
      };
      yield* issueWithoutTick(tier, route, true);
    },
  },
  // an expert charged to another device than its home
  'SPEC-HOME': {
    scenario: { budgetExperts: [3, 3] },
    *main(tier) {
      yield* tier.init();
      yield LOCK;
      Object.assign(slotOf(tier.st, 0, 0), { home: 1 });
      yield UNLOCK;
      yield* tier.planFill();
    },
  },
  // issue claims an expert it did not put in any group
  'SPEC-MASK': {
    *main(tier) {
      yield* tier.init();
      const route = (yield { k: 'route', token: 0, layer: 0 }) as {
        token: number;
        layer: number;
        eids: number[];
        input: never;
      };
      yield call({ fn: 'issue', route });
      const mask = yield* inGate(tier, issue(tier.st, route));
      yield ret({ fn: 'issue', value: mask.map(() => true) });
    },
  },
  // take reports a lost group as collected
  'SPEC-TAKE': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'take', layer: 0 });
      const r = yield* inGate(tier, take(tier.st, 0));
      yield ret({ fn: 'take', value: { ok: !r.ok, outputs: r.outputs } });
    },
  },
  // a hit counted for nothing
  'SPEC-COUNTERS': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'resident_count' });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      tier.st.counters.hits++;
      yield UNLOCK;
      yield* leave(tier.st.gate);
      yield ret({ fn: 'resident_count', value: 0 });
    },
  },
  // the heat file loaded without halving
  'SPEC-HEAT-FILE': {
    scenario: {
      heatFile: [
        [10, 20, 30, 40, 50, 60, 70, 80],
        [1, 2, 3, 4, 5, 6, 7, 8],
      ],
    },
    *main(tier) {
      yield* handInit(tier, false, () => uploaderThread(tier.st));
      yield* tier.shutdown();
    },
  },
  // an uploader that leaves at once instead of waiting for work
  'SPEC-UPLOADER': {
    *main(tier) {
      yield* handInit(tier, true, function* () {
        yield LOCK;
        yield UNLOCK;
      });
    },
  },
  // shutdown does its work and says it had nothing to do
  'SPEC-SHUTDOWN': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'shutdown' });
      yield* shutdown(tier.st);
      yield ret({ fn: 'shutdown', value: 'already' });
    },
  },
  // an enqueue that never wakes the uploader
  'SPEC-WAKEUP': {
    *main(tier) {
      yield* tier.init();
      const ram = yield* ramOf(0, 0);
      if (ram === null) return;
      yield call({ fn: 'note', layer: 0, eid: 0, ram });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      const st = tier.st;
      const slot = slotOf(st, 0, 0);
      slot.heat++;
      slot.ram = ram;
      const staging = yield { k: 'stage', ram, layer: 0, eid: 0 };
      st.used[0] = (st.used[0] ?? 0) + st.expBytes;
      slot.queued = true;
      st.ring[st.qt] = { layer: 0, eid: 0, staging: staging as never, victim: null };
      st.qt = (st.qt + 1) % st.cfg.ringCapacity;
      st.qn++;
      st.inflight++;
      yield UNLOCK;
      yield* leave(st.gate);
      yield ret({ fn: 'note', value: true });
    },
  },
  // the tier's state changed outside any tier call
  'SPEC-STATE': {
    *main(tier) {
      yield* tier.init();
      yield LOCK;
      tier.st.tick++;
      yield UNLOCK;
    },
  },
  // the warmstart plans, then waits without handing the planned experts over: none resident
  'PROG-FILL': {
    *main(tier) {
      yield* tier.init();
      yield* tier.planFill();
      yield* tier.fillWait();
    },
  },
  // an expert call that skips the gate: teardown would not wait for it
  'SPEC-GATE': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'resident_count' });
      yield LOCK;
      yield UNLOCK;
      yield ret({ fn: 'resident_count', value: 0 });
    },
  },
  // re-plan reports a pair it never planned (nothing was routed, nothing to swap)
  'SPEC-REPLAN': {
    scenario: { wantSwaps: true, reclaims: true },
    *main(tier) {
      yield* tier.init();
      const counts = [new Array<number>(tier.st.cfg.experts).fill(0)];
      yield call({ fn: 'replan', layer: 0, counts, maxSwaps: 2 });
      yield* inGate(tier, lockedNothing());
      yield ret({ fn: 'replan', value: [{ layer: 0, victim: 0, newcomerLayer: 0, newcomer: 2 }] });
    },
  },
  // evicted_take counts a dropped eviction that never was
  'SPEC-EVICTED': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'evicted_take', max: 4 });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      tier.st.evictedDropped++;
      yield UNLOCK;
      yield* leave(tier.st.gate);
      yield ret({ fn: 'evicted_take', value: [] });
    },
  },
  // synchronous mode: issue builds its group while an upload is still in flight
  'SPEC-SYNC-MODE': {
    scenario: { syncUploads: true },
    *main(tier) {
      yield* tier.init();
      yield* tier.note(0, 0, yield* ramOf(0, 0));
      const route = (yield { k: 'route', token: 0, layer: 0 }) as {
        token: number;
        layer: number;
        eids: number[];
        input: never;
      };
      yield call({ fn: 'issue', route });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      yield UNLOCK;
    },
  },
  // prefer reports residents that are not
  'SPEC-PREFER': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'prefer', layer: 0, cands: [0, 1] });
      yield* inGate(tier, lockedNothing());
      yield ret({ fn: 'prefer', value: [true, true] });
    },
  },
  // stats reports hits that never happened
  'SPEC-STATS': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'stats' });
      yield* inGate(tier, lockedNothing());
      yield ret({ fn: 'stats', value: { hits: 5, misses: 0, uploads: 0, swaps: 0, evictedDropped: 0 } });
    },
  },
  // fill_wait sleeps though nothing is in flight: nobody will wake it for that
  'LIVE-LOST-WAKEUP': {
    *main(tier) {
      yield* tier.init();
      yield call({ fn: 'fill_wait' });
      yield* enter(tier.st.gate, 'expert');
      yield LOCK;
      yield { k: 'wait', cv: 'cv_take' };
      yield UNLOCK;
    },
  },
};

/**
 * issue on layer 0 with the tick's work left undone: the group and the counters as the
 * protocol builds them, tick++, and then no swap round (swap) or no decay (decay).
 */
function* issueWithoutTick(
  tier: Tier,
  route: { token: number; layer: number; eids: number[]; input: never },
  decayOnly: boolean,
): Gen<void> {
  const st = tier.st;
  yield call({ fn: 'issue', route });
  yield* enter(st.gate, 'expert');
  yield LOCK;
  st.issueOpen = true;
  for (const eid of route.eids) {
    const slot = slotOf(st, route.layer, eid);
    if (slot.resident && slot.tensors !== null) st.counters.hits++;
    else st.counters.misses++;
  }
  st.tick++;
  if (!decayOnly)
    for (const row of st.slots) for (const slot of row) if (st.tick % st.cfg.decayPeriod === 0) slot.heat >>>= 1;
  yield UNLOCK;
}
