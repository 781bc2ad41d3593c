/**
 * A scenario as the C tier's harness runs it: the explicit mapping from tierlab's
 * Scenario (model/scenario/scenario.ts) to the harness's flat configuration
 * (native/tier/harness/th.h, TH_CFG_*), word by word.
 *
 * The tier's configuration comes from the one assembly both worlds use
 * (src/engine/assemble.ts, through model/run.ts's buildRun), and the world's numbers from
 * the simulator's own world for the same scenario (each device's real capacity, what an
 * expert really takes, the heat file's bytes on disk as damaged as the scenario says), so
 * a scenario means the same tier, the same budgets and the same device in both worlds. The
 * driver's plan (warmstart, loaders, shutdown point, careless habits, runs) and the fault
 * plan carry over as they are; the C driver (native/tier/harness/th_driver.c) reads them
 * as src/engine/driver.ts does.
 */
import type { CarelessHabit } from '../../src/engine/careless.js';
import type { DriverPlan, ShutdownPoint } from '../../src/engine/driver.js';
import { FAULT_SITES, faultKey } from '../../src/engine/fault_sites.js';
import type { TierConfig } from '../../src/tier/config.js';
import { MAX_GROUP_ROWS } from '../../src/tier/config.js';
import type { WorldShape } from '../../src/check/replay/shadow_world.js';
import { buildRun, fillCannotFail } from '../run.js';
import type { ReferenceSetup } from '../../src/check/trace/trace_reference.js';
import { freeRunCheckers } from './checkers.js';
import type { Scenario } from '../scenario/scenario.js';
import { SimulatedWorld } from '../sim_engine/sim_world.js';

export const HARNESS_MAGIC = 1952998246;
const MAX_DEVICES = 8;
const CARELESS_BITS: Record<CarelessHabit, number> = {
  'hand-over-twice': 1,
  'plan-twice': 2,
  'fill-wait-twice': 4,
  'release-unplanned': 8,
};
const WARMSTART = { none: 0, plan: 1, block: 2 } as const;
const PHASE = { plan: 0, warmstart: 1, fill: 2, decode: 3 } as const;

/** Everything one C tier run of a scenario needs, and what its replay is judged by. */
export interface HarnessScenario {
  readonly scenario: Scenario;
  readonly words: Float64Array;
  /** the heat file on disk before the first init (null: none) */
  readonly heat: Uint8Array | null;
  readonly tier: TierConfig;
  readonly plan: DriverPlan;
  readonly world: WorldShape;
  /** nothing can fail in the warmstart (PROG-FILL applies) */
  readonly faultFree: boolean;
}

export function harnessScenario(s: Scenario): HarnessScenario {
  const sim = new SimulatedWorld(s, MAX_GROUP_ROWS);
  const { cfg, plan } = buildRun(s, sim);
  const w: number[] = [HARNESS_MAGIC, 1, s.devices, s.layers, s.experts, s.topk, s.expertFormat, s.groupSize];
  w.push(s.ramCapacity, ...s.weightBytes, ...s.scaleBytes, cfg.reserveBytes, cfg.ringCapacity);
  w.push(
    s.wantSwaps ? 1 : 0,
    cfg.streaming ? 1 : 0,
    s.reclaims ? 1 : 0,
    cfg.swapPeriod,
    cfg.decayPeriod,
    cfg.startTick,
  );
  w.push(WARMSTART[plan.warmstart], plan.loaders, plan.tokens, plan.refillAfterToken, plan.runs);
  w.push(plan.initTwice ? 1 : 0, plan.denseWhileGroupOpen ? 1 : 0, careless(plan.careless));
  w.push(...shutdownWords(plan.shutdownAt), cfg.heatFile ? 1 : 0, cfg.syncUploads ? 1 : 0, cfg.evictCapacity);
  w.push(plan.initRacer ? 1 : 0, plan.secondShutdown ? 1 : 0, plan.evictedPoll);
  for (let d = 0; d < MAX_DEVICES; d++) {
    const b = cfg.budgetBytes[d];
    w.push(b === undefined || b === 'auto' ? -1 : b);
  }
  for (let d = 0; d < MAX_DEVICES; d++) w.push(sim.capacity[d] ?? 0);
  w.push(cfg.trunk.length);
  for (const o of cfg.trunk) w.push(o.layer, o.weightBytes, o.scaleBytes);
  for (const token of s.routes) for (const eids of token) w.push(eids.length, ...eids);
  w.push(s.noRam.length);
  for (const k of s.noRam) w.push(k.layer, k.eid);
  for (const site of FAULT_SITES) {
    const calls = s.faults[faultKey(site)];
    w.push(calls.length, ...calls);
  }
  return {
    scenario: s,
    words: Float64Array.from(w),
    heat: sim.heatFileBytes,
    tier: cfg,
    plan,
    world: {
      devices: s.devices,
      layers: s.layers,
      reclaims: s.reclaims,
      expectedCombines: sim.expectedCombines,
    },
    faultFree: fillCannotFail(s),
  };
}

function careless(habits: readonly CarelessHabit[]): number {
  let bits = 0;
  for (const h of habits) bits |= CARELESS_BITS[h];
  return bits;
}

/** phase, own thread, token, layer, group open (TH_CFG_SHUTDOWN_*) */
function shutdownWords(at: ShutdownPoint | null): number[] {
  if (at === null) return [-1, 0, 0, 0, 0];
  const own = at.thread === 'own' ? 1 : 0;
  if (at.phase !== 'decode') return [PHASE[at.phase], own, 0, 0, 0];
  return [PHASE.decode, own, at.token, at.layer, at.groupOpen ? 1 : 0];
}

/** What a free run's log of the scenario is replayed against (check-trace --reference). */
export function referenceSetup(s: Scenario): ReferenceSetup {
  const sc = harnessScenario(s);
  const checkers = freeRunCheckers({ faultFree: sc.faultFree, wantSwaps: s.wantSwaps });
  return { cfg: sc.tier, world: sc.world, heat: sc.heat, checkers };
}
