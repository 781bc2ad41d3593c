/**
 * The oracle's runs: every budget (nothing resident, one expert, half, everything),
 * cold and warm starts, swaps, streaming, and injected faults. Each must produce the
 * reference tokens and the CPU-only run's hidden states, bit for bit.
 *
 * A run spec is a subset of the simulator's scenario shape (src/engine/run_spec.ts) plus
 * a name and whether to read the heat file an earlier run of the matrix left.
 */
import { NO_FAULTS } from '../engine/fault_sites.js';
import type { OracleRunSpec } from './oracle_run.js';

/** The matrix for `devices` devices of a model with `experts` experts per device when all fit. */
export function oracleMatrix(devices: number, perDevice: number): OracleRunSpec[] {
  const budget = (n: number): readonly number[] => new Array<number>(devices).fill(n);
  const half = budget(Math.max(1, Math.ceil(perDevice / 2)));
  const all = budget(perDevice);
  const base: OracleRunSpec = {
    name: '',
    budgetExperts: budget(0),
    warmstart: 'none',
    loaders: 2,
    useHeatFile: false,
    wantSwaps: false,
    swapPeriod: 16,
    streaming: false,
    faults: NO_FAULTS,
    shutdownAt: null,
  };
  return [
    { ...base, name: 'cpu-only (nothing resident)' },
    { ...base, name: 'one expert, cold', budgetExperts: budget(1) },
    { ...base, name: 'one expert, warmstart', budgetExperts: budget(1), warmstart: 'plan' },
    { ...base, name: 'half, cold', budgetExperts: half },
    { ...base, name: 'half, warmstart', budgetExperts: half, warmstart: 'plan' },
    { ...base, name: 'everything, cold', budgetExperts: all },
    { ...base, name: 'everything, warmstart', budgetExperts: all, warmstart: 'plan', loaders: 4 },
    { ...base, name: 'half, swaps', budgetExperts: half, wantSwaps: true, swapPeriod: 2, useHeatFile: true },
    { ...base, name: 'half, swaps, warm heat file', budgetExperts: half, wantSwaps: true, swapPeriod: 2, useHeatFile: true, warmstart: 'plan' },
    { ...base, name: 'half, streaming, swaps', budgetExperts: half, streaming: true, wantSwaps: true, swapPeriod: 2 },
    { ...base, name: 'fault: failed upload', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, uploadFails: [4] } },
    { ...base, name: 'fault: failed take', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, takeFails: [3] } },
    { ...base, name: 'fault: failed issue', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, issueFails: [2] } },
    { ...base, name: 'shutdown mid-fill', budgetExperts: all, warmstart: 'plan', shutdownAt: { phase: 'warmstart', thread: 'caller' } },
    {
      ...base,
      name: 'shutdown with a group open',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      shutdownAt: { phase: 'decode', token: 12, layer: 0, groupOpen: true, thread: 'caller' },
    },
  ];
}
