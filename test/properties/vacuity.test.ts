/**
 * No property is vacuous: each one fails on at least one hand-made faulty trace.
 * Every case is a hand-written main thread that commits exactly one fault.
 */
import { describe, expect, it } from 'vitest';
import type { ExpertPart, Gen, RamRef, RouteInfo, StagingCopy, TensorHandle } from '../../src/ops.js';
import type { DriverDecisions } from '../../src/check/checkers/driver.js';
import type { Tier } from '../../src/tier/tier.js';
import { slotOf } from '../../src/tier/state.js';
import { enter } from '../../src/tier/gate.js';
import { runScenario } from '../../model/run.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import type { SimulatedWorld } from '../../model/sim_engine/sim_world.js';
import { PROPERTIES } from '../../src/check/catalogue.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import { SPEC_FAULTS } from './spec_faults.js';

type Main = (tier: Tier, world: SimulatedWorld) => Gen<void>;

const LOCK = { k: 'lock' } as const;
const UNLOCK = { k: 'unlock' } as const;
const GLOCK = { k: 'lock', mutex: 'gmx' } as const;
const GUNLOCK = { k: 'unlock', mutex: 'gmx' } as const;

function* stage(layer: number, eid: number): Gen<StagingCopy> {
  const ram = (yield { k: 'ramOf', layer, eid }) as RamRef;
  return (yield { k: 'stage', ram, layer, eid }) as StagingCopy;
}

function* upload(staging: StagingCopy, layer: number, eid: number, part: ExpertPart, dev = 0): Gen<TensorHandle> {
  return (yield { k: 'upload', dev, staging, part, layer, eid }) as TensorHandle;
}

function* uploadExpert(layer: number, eid: number, dev = 0): Gen<TensorHandle[]> {
  const s = yield* stage(layer, eid);
  const out: TensorHandle[] = [];
  for (const part of ['gate', 'up', 'down'] as const) out.push(yield* upload(s, layer, eid, part, dev));
  yield { k: 'unstage', staging: s };
  return out;
}

/** a driver asked for a planned warmstart, as the engine's is */
const PLANNED: DriverDecisions = { warmstart: 'plan', initTwice: true, handOverTwice: false };

interface Case {
  main: Main;
  scenario?: Partial<Scenario>;
  maxSteps?: number;
  driver?: DriverDecisions;
}

const cases: Record<string, Case> = {
  ...SPEC_FAULTS,
  // init answered 'active', then 'already': the driver took the second answer and skipped the warmstart
  'DRV-WARMSTART': {
    driver: PLANNED,
    *main(tier) {
      yield* tier.init();
      yield* tier.init();
      const route = (yield { k: 'route', token: 0, layer: 0 }) as RouteInfo;
      yield* tier.issue(route);
    },
  },
  'DRV-HANDOVER': {
    driver: PLANNED,
    *main(tier) {
      yield* tier.init();
      const planned = yield* tier.planFill();
      for (const k of planned.slice(1)) yield* tier.notePlanned(k.layer, k.eid, null);
      yield* tier.fillWait();
    },
  },
  'DRV-FILL-WAIT': {
    driver: { ...PLANNED, warmstart: 'none' },
    *main(tier) {
      yield* tier.init();
      const route = (yield { k: 'route', token: 0, layer: 0 }) as RouteInfo;
      yield* tier.issue(route);
      yield* tier.fillWait();
    },
  },
  'ACC-INFLIGHT': {
    *main(tier) {
      yield* tier.init();
      yield LOCK;
      tier.st.inflight++;
      yield UNLOCK;
    },
  },
  'ACC-BUDGET': {
    *main(tier) {
      yield* tier.init();
      yield LOCK;
      tier.st.used[0] = (tier.st.used[0] ?? 0) + 1;
      yield UNLOCK;
    },
  },
  'ACC-FOOTPRINT': {
    scenario: { weightBytes: [8 * 1024, 24 * 1024, 100 * 1024] },
    *main(tier) {
      yield* tier.init();
      const s = yield* stage(0, 0);
      const tensors = [yield* upload(s, 0, 0, 'gate'), yield* upload(s, 0, 0, 'gate'), yield* upload(s, 0, 0, 'gate')];
      yield { k: 'unstage', staging: s };
      yield LOCK;
      const slot = slotOf(tier.st, 0, 0);
      slot.resident = true;
      slot.tensors = tensors;
      tier.st.used[0] = (tier.st.used[0] ?? 0) + tier.st.expBytes;
      yield UNLOCK;
    },
  },
  'DEV-BUDGET': {
    *main(tier) {
      yield* tier.init();
      for (let eid = 0; eid < 8; eid += 2) yield* uploadExpert(0, eid);
      yield LOCK;
      yield UNLOCK;
    },
  },
  'VARIANT-FILL-ONCE': {
    scenario: { reclaims: false },
    *main(tier) {
      yield* tier.init();
      yield { k: 'mark', what: 'swap-enqueued', detail: 'L0E1<-L0E0' };
    },
  },
  'MEM-DEVICE': {
    *main() {
      const [t] = yield* uploadExpert(0, 0);
      yield { k: 'free', dev: 0, tensor: t as TensorHandle };
      yield { k: 'free', dev: 0, tensor: t as TensorHandle };
    },
  },
  'MEM-RAM': {
    *main() {
      const ram = (yield { k: 'ramOf', layer: 0, eid: 0 }) as RamRef;
      yield { k: 'freeRam', layer: 0, eid: 0 };
      yield { k: 'stage', ram, layer: 0, eid: 0 };
    },
  },
  'MEM-HOST': {
    *main() {
      const s = yield* stage(0, 0);
      yield { k: 'unstage', staging: s };
      yield { k: 'unstage', staging: s };
    },
  },
  'MEM-UPLOAD-BYTES': {
    *main() {
      const s = yield* stage(0, 1);
      yield* upload(s, 0, 0, 'gate');
    },
  },
  'MEM-BOUNDS': {
    *main(_tier, world) {
      const input = world.exec({ k: 'route', token: 0, layer: 0 }) as { input: never };
      yield { k: 'writeInput', dev: 1, rowOffset: 8, rows: 2, input: input.input };
    },
  },
  'MEM-BUFFER-OWNER': {
    *main(_tier, world) {
      const tensors = yield* uploadExpert(0, 0);
      const route = world.exec({ k: 'route', token: 0, layer: 0 }) as { input: never };
      yield { k: 'writeInput', dev: 0, rowOffset: 0, rows: 1, input: route.input };
      yield { k: 'issueGroup', dev: 0, rowOffset: 0, rows: [{ layer: 0, eid: 0, tensors }] };
      yield {
        k: 'denseGemv',
        dev: 0,
        index: 0,
        tensor: tensors[0] as TensorHandle,
        inBuf: 'group_in0',
        outBuf: 'dense_out0',
      };
    },
  },
  'POST-FILL-WAIT': {
    *main(tier) {
      yield* tier.init();
      yield { k: 'call', call: { fn: 'fill_wait' } };
      yield LOCK;
      slotOf(tier.st, 0, 0).queued = true;
      tier.st.inflight = 1;
      yield { k: 'ret', ret: { fn: 'fill_wait', value: 'done' } };
    },
  },
  'POST-WARMSTART': {
    scenario: { ringCapacity: 1 },
    *main(tier) {
      // the warmstart enqueues without waiting for ring space: the second one is skipped
      yield* tier.init();
      for (let eid = 0; eid < 2; eid++)
        yield* tier.note(0, eid, (yield { k: 'ramOf', layer: 0, eid }) as RamRef | null);
      yield* tier.fillWait();
    },
  },
  'POST-RESIDENCY': {
    *main(tier) {
      yield* tier.init();
      yield { k: 'mark', what: 'residency', detail: '5' };
    },
  },
  'POST-SHUTDOWN': {
    *main(tier) {
      yield* tier.init();
      yield* uploadExpert(0, 0); // tensors the tier never learns about: leaked
      yield* tier.shutdown();
      // the engine's own token-layers, so only the leak is wrong
      for (let t = 0; t < 6; t++) for (let l = 0; l < 2; l++) yield* combineRouted(t, l);
    },
  },
  'MEM-SYNC': {
    *main(tier) {
      yield* tier.init();
      yield* tier.shutdown();
      // a caller that passed an unlocked check before the teardown: the mutex is gone
      yield LOCK;
    },
  },
  'MEM-GENERATION': {
    *main(tier, world) {
      // tensors of the generation before init, read by a group of init's generation
      const tensors = yield* uploadExpert(0, 0);
      yield* tier.init();
      const route = world.exec({ k: 'route', token: 0, layer: 0 }) as { input: never };
      yield { k: 'writeInput', dev: 0, rowOffset: 0, rows: 1, input: route.input };
      yield { k: 'issueGroup', dev: 0, rowOffset: 0, rows: [{ layer: 0, eid: 0, tensors }] };
    },
  },
  'GATE-STATE': {
    *main(tier) {
      yield* tier.init();
      yield GLOCK;
      tier.st.gate.x = 1; // an exclusive section held while the tier is LIVE, by nobody
      tier.st.gate.live = 1;
      yield GUNLOCK;
    },
  },
  'POST-SHUTDOWN-RETURN': {
    *main(tier) {
      yield* tier.init();
      // shutdown returns at once, the generation it found still standing
      yield { k: 'call', call: { fn: 'shutdown' } };
      yield { k: 'ret', ret: { fn: 'shutdown', value: 'already' } };
    },
  },
  'EVICT-ONCE': {
    *main(tier) {
      yield* tier.init();
      yield { k: 'call', call: { fn: 'evicted_take', max: 2 } };
      yield { k: 'ret', ret: { fn: 'evicted_take', value: [{ layer: 0, eid: 3 }] } };
    },
  },
  'COMP-EXACT-ONCE': {
    *main() {
      yield { k: 'combine', token: 0, layer: 0, parts: [] };
    },
  },
  'COMP-MISS-WEIGHTS': {
    *main(_tier, world) {
      const route = world.exec({ k: 'route', token: 0, layer: 0 }) as { input: never };
      yield { k: 'cpuExpert', layer: 0, eid: 0, ram: null, input: route.input };
    },
  },
  'LIVE-DEADLOCK': {
    *main() {
      yield LOCK;
      yield { k: 'wait', cv: 'cv_take' };
      yield UNLOCK;
    },
  },
  'LIVE-SHUTDOWN': {
    *main(tier) {
      // a thread that sleeps on the gate after shutdown: nobody is left to wake it
      yield* tier.init();
      yield* tier.shutdown();
      yield {
        k: 'spawn',
        name: 'sleeper',
        body: function* () {
          yield GLOCK;
          for (;;) yield { k: 'wait', cv: 'gcv' };
        },
      };
    },
  },
  'LIVE-STEPS': {
    maxSteps: 500,
    *main() {
      for (;;) {
        yield LOCK;
        yield UNLOCK;
      }
    },
  },
  'SAFE-NO-CRASH': {
    *main(tier) {
      yield* tier.init();
      yield* tier.note(99, 0, null); // no such layer: the tier's slot lookup throws
    },
  },
  'SYNC-DISCIPLINE': {
    *main() {
      yield UNLOCK;
    },
  },
  'LIMIT-THREADS': {
    *main() {
      // a thread started per call: the run's thread limit ends it
      for (let i = 0; i < 64; i++) yield { k: 'spawn', name: `worker${i}`, body: function* () {} };
    },
  },
};

/** computes a token-layer correctly on the CPU (so only the case's own fault shows) */
function* combineRouted(token: number, layer: number): Gen<void> {
  const route = (yield { k: 'route', token, layer }) as { eids: number[]; input: never };
  const parts = [];
  for (const eid of route.eids) {
    const ram = (yield { k: 'ramOf', layer, eid }) as RamRef | null;
    const output = yield { k: 'cpuExpert', layer, eid, ram, input: route.input };
    parts.push({ eid, output: output as never, where: 'cpu' as const });
  }
  yield { k: 'combine', token, layer, parts };
}

describe('no property is vacuous', () => {
  it('every property in the catalogue has a faulty trace here', () => {
    expect(Object.keys(cases).sort()).toEqual(PROPERTIES.map((p) => p.id).sort());
  });
  for (const [id, c] of Object.entries(cases)) {
    it(`${id} fails on its faulty trace`, () => {
      const s: Scenario = { ...defaultScenario(), ...c.scenario };
      const r = runScenario(s, {
        strategy: new ChoicesStrategy([]),
        main: c.main,
        limits: c.maxSteps !== undefined ? { maxSteps: c.maxSteps } : {},
        ...(c.driver !== undefined ? { driver: c.driver } : {}),
      });
      expect(r.violation?.property, r.violation?.message ?? 'no violation').toBe(id);
    });
  }
});

describe('sync discipline has teeth beyond a bare unlock', () => {
  it('a signal without holding mx is a violation', () => {
    const r = runScenario(defaultScenario(), {
      strategy: new ChoicesStrategy([]),
      *main() {
        yield { k: 'signal', cv: 'cv' };
      },
    });
    expect(r.violation?.message).toContain('signals cv without holding mx');
  });

  it('changing mx-guarded state without holding mx is a violation', () => {
    const r = runScenario(defaultScenario(), {
      strategy: new ChoicesStrategy([]),
      *main(tier) {
        yield* tier.init();
        // inside a tier call, after its unlock: a data race in C
        yield { k: 'call', call: { fn: 'resident_count' } };
        yield* enter(tier.st.gate, 'expert');
        yield LOCK;
        yield UNLOCK;
        tier.st.tick = 1000;
        yield LOCK;
        yield UNLOCK;
      },
    });
    expect(r.violation?.message).toContain('changed mx-guarded state without holding mx');
  });

  it('reading mx-guarded state without holding mx is a violation, even in the step of the unlock', () => {
    const r = runScenario(defaultScenario(), {
      strategy: new ChoicesStrategy([]),
      *main(tier) {
        yield* tier.init();
        yield LOCK;
        const slot = slotOf(tier.st, 0, 1);
        yield UNLOCK;
        // no yield between the unlock and the read: the same atomic step in the simulator
        if (slot.resident) yield LOCK;
      },
    });
    expect(r.violation?.property).toBe('SYNC-DISCIPLINE');
    expect(r.violation?.message).toContain('main read mx-guarded st.slots[0][1].resident without holding mx');
  });
});
