/**
 * The oracle's runs: every budget (nothing resident, one expert, half, everything),
 * cold and warm starts, swaps, streaming, and injected faults. Each must produce the
 * reference tokens and the CPU-only run's hidden states, bit for bit.
 */
import type { OracleRunSpec } from './oracle_run.js';

const base: OracleRunSpec = {
  name: '',
  budgetExperts: 0,
  warmstart: 'none',
  loaders: 2,
  heatFile: false,
  swaps: false,
  swapPeriod: 16,
  streaming: false,
  fault: null,
  shutdownAt: null,
};

export function oracleMatrix(halfPerDevice: number): OracleRunSpec[] {
  const half = Math.max(1, halfPerDevice);
  return [
    { ...base, name: 'cpu-only (nothing resident)' },
    { ...base, name: 'one expert, cold', budgetExperts: 1 },
    { ...base, name: 'one expert, warmstart', budgetExperts: 1, warmstart: 'plan' },
    { ...base, name: 'half, cold', budgetExperts: half },
    { ...base, name: 'half, warmstart', budgetExperts: half, warmstart: 'plan' },
    { ...base, name: 'everything, cold', budgetExperts: 'all' },
    { ...base, name: 'everything, warmstart', budgetExperts: 'all', warmstart: 'plan', loaders: 4 },
    { ...base, name: 'half, swaps', budgetExperts: half, swaps: true, swapPeriod: 2, heatFile: true },
    { ...base, name: 'half, swaps, warm heat file', budgetExperts: half, swaps: true, swapPeriod: 2, heatFile: true, warmstart: 'plan' },
    { ...base, name: 'half, streaming, swaps', budgetExperts: half, streaming: true, swaps: true, swapPeriod: 2 },
    { ...base, name: 'fault: failed upload', budgetExperts: 'all', warmstart: 'plan', fault: { op: 'upload', after: 4 } },
    { ...base, name: 'fault: failed take', budgetExperts: 'all', warmstart: 'plan', fault: { op: 'take', after: 3 } },
    { ...base, name: 'fault: failed issue', budgetExperts: 'all', warmstart: 'plan', fault: { op: 'issue', after: 2 } },
    { ...base, name: 'shutdown mid-fill', budgetExperts: 'all', warmstart: 'plan', shutdownAt: { phase: 'warmstart' } },
    { ...base, name: 'shutdown with a group open', budgetExperts: half, swaps: true, swapPeriod: 2, shutdownAt: { phase: 'decode', token: 12, layer: 0, groupOpen: true } },
  ];
}
