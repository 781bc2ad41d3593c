/**
 * The default scenario: two devices, swaps, a planned warmstart with two loaders, a
 * ring small enough to fill, and a concurrent shutdown. Used by the benchmark and as a
 * readable starting point.
 */
import type { Scenario } from '../model/scenario.js';
import { NO_FAULTS } from '../model/sim_engine/faults.js';

export function defaultScenario(): Scenario {
  const layers = 2;
  const experts = 8;
  const tokens = 6;
  const routes: number[][][] = [];
  for (let t = 0; t < tokens; t++) {
    const perLayer: number[][] = [];
    for (let l = 0; l < layers; l++) perLayer.push([(t + l) % experts, (3 * t + 1 + l) % experts === (t + l) % experts ? (t + l + 1) % experts : (3 * t + 1 + l) % experts]);
    routes.push(perLayer);
  }
  return {
    devices: 2,
    layers,
    experts,
    topk: 2,
    ringCapacity: 2,
    budgetExperts: [3, 3],
    capacityExperts: [null, null],
    weightBytes: [24 * 1024, 24 * 1024, 24 * 1024],
    loaders: 2,
    warmstart: 'plan',
    heatFile: null,
    streaming: false,
    wantSwaps: true,
    reclaims: true,
    swapPeriod: 2,
    decayPeriod: 64,
    routes,
    noRam: [],
    refillAfterToken: 2,
    shutdownAt: null,
    denseBytes: 0,
    denseWhileGroupOpen: false,
    faults: NO_FAULTS,
    spuriousWakeups: 0,
  };
}
