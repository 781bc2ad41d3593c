/**
 * The default scenario: two devices, swaps, a planned warmstart with two loaders, a
 * ring small enough to fill, a re-fill between tokens, shutdown at the end. Used by the
 * benchmark and the tests as a readable starting point.
 */
import type { Scenario } from '../model/scenario.js';
import { NO_FAULTS } from '../model/sim_engine/faults.js';

export function defaultScenario(): Scenario {
  const layers = 2;
  const experts = 8;
  const tokens = 6;
  const routes: number[][][] = [];
  // two distinct experts per token and layer, moving at different speeds so that heat
  // builds up unevenly and swaps happen
  const route = (t: number, l: number): number[] => {
    const first = (t + l) % experts;
    const second = (3 * t + 1 + l) % experts;
    return [first, second === first ? (first + 1) % experts : second];
  };
  for (let t = 0; t < tokens; t++) routes.push(Array.from({ length: layers }, (_, l) => route(t, l)));
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
