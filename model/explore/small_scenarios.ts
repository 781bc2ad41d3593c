/**
 * Small scenarios sized for exhaustive search, shared by the benchmark and the tests.
 *
 * `smallWarmstart`: one device, four experts, two loaders, ring depth 2, a planned
 * warmstart then shutdown (no tokens): four threads (main, uploader, two loaders) racing
 * over the ring, fill_wait and the uploader's copies, which is where #1360 lives.
 */
import type { Scenario } from '../scenario.js';
import { NO_FAULTS } from '../sim_engine/faults.js';

export function smallWarmstart(over: Partial<Scenario> = {}): Scenario {
  return {
    devices: 1,
    layers: 1,
    experts: 4,
    topk: 1,
    ringCapacity: 2,
    budgetExperts: [4],
    capacityExperts: [null],
    weightBytes: [8 * 1024, 8 * 1024, 8 * 1024],
    loaders: 2,
    warmstart: 'plan',
    heatFile: null,
    streaming: false,
    wantSwaps: false,
    reclaims: true,
    swapPeriod: 16,
    decayPeriod: 1024,
    routes: [],
    noRam: [],
    refillAfterToken: -1,
    shutdownAt: null,
    denseBytes: 0,
    denseWhileGroupOpen: false,
    faults: NO_FAULTS,
    spuriousWakeups: 0,
    ...over,
  };
}
