/**
 * The oracle's runs: every budget (nothing resident, one expert, half, everything),
 * cold and warm starts, swaps, a refill right after a swap, streaming (through RAM LRUs of
 * several sizes), a slow bus, injected faults (on the host side too: a failed warmstart load, a failed staging copy), and
 * for a model with the int8 trunk the trunk resident alone, the experts alone, both, and
 * half of each. Each must produce the reference tokens and
 * the CPU-only run's hidden states, bit for bit.
 *
 * A run spec is a subset of the simulator's scenario shape (src/engine/run_spec.ts) plus
 * a name and whether to read the heat file an earlier run of the matrix left.
 */
import { NO_FAULTS } from '../engine/fault_sites.js';
import type { OracleRunSpec } from './oracle_run.js';

/** What of the model the matrix exercises beyond the experts. */
export interface MatrixModel {
  /** experts per layer (the RAM LRU's sizes are fractions of it) */
  readonly experts: number;
  /** the model has the int8 trunk: its matrices can be resident */
  readonly int8Trunk: boolean;
}

/** The matrix for `devices` devices of a model with `experts` experts per device when all fit. */
export function oracleMatrix(devices: number, perDevice: number, model?: MatrixModel): OracleRunSpec[] {
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
  const streamingSwaps: OracleRunSpec = { ...base, budgetExperts: half, streaming: true, wantSwaps: true, swapPeriod: 2 };
  const lruSizes = model === undefined ? [] : [...new Set([1, 2, Math.max(1, Math.floor(model.experts / 2))])].filter((n) => n < model.experts);
  const trunkRows: OracleRunSpec[] = !model?.int8Trunk
    ? []
    : [
        { ...base, name: 'trunk only (no expert resident)', trunk: 'all' },
        { ...base, name: 'half the trunk, by value per byte', trunk: 'half' },
        { ...base, name: 'experts only (trunk on the CPU)', budgetExperts: all, warmstart: 'plan', loaders: 4 },
        { ...base, name: 'trunk and experts', budgetExperts: all, warmstart: 'plan', loaders: 4, trunk: 'all' },
        { ...base, name: 'trunk and half the experts, swaps', budgetExperts: half, wantSwaps: true, swapPeriod: 2, trunk: 'all' },
        { ...streamingSwaps, name: 'trunk, streaming, RAM LRU 2', lruPerLayer: 2, trunk: 'all' },
      ];
  return [
    { ...base, name: 'cpu-only (nothing resident)' },
    { ...base, name: 'one expert, cold', budgetExperts: budget(1) },
    { ...base, name: 'one expert, warmstart', budgetExperts: budget(1), warmstart: 'plan' },
    { ...base, name: 'half, cold', budgetExperts: half },
    { ...base, name: 'half, warmstart', budgetExperts: half, warmstart: 'plan' },
    { ...base, name: 'everything, cold', budgetExperts: all },
    { ...base, name: 'everything, warmstart, no early reserve', budgetExperts: all, warmstart: 'plan', loaders: 4, reserve: false },
    { ...base, name: 'everything, warmstart', budgetExperts: all, warmstart: 'plan', loaders: 4 },
    { ...base, name: 'half, swaps', budgetExperts: half, wantSwaps: true, swapPeriod: 2, useHeatFile: true },
    { ...base, name: 'half, swaps, warm heat file', budgetExperts: half, wantSwaps: true, swapPeriod: 2, useHeatFile: true, warmstart: 'plan' },
    { ...streamingSwaps, name: 'half, streaming, swaps' },
    ...lruSizes.map((n): OracleRunSpec => ({ ...streamingSwaps, name: `half, streaming, swaps, RAM LRU ${n}`, lruPerLayer: n })),
    { ...base, name: 'slow bus (2 ms a copy: cpu, cuda), warmstart', budgetExperts: all, warmstart: 'plan', loaders: 4, copyDelayUs: 2000 },
    { ...base, name: 'slow device (2 ms a group: cpu, cuda), warmstart', budgetExperts: all, warmstart: 'plan', loaders: 4, groupDelayUs: 2000 },
    { ...base, name: 'fault: failed upload', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, uploadFails: [4] }, arranged: 'upload-failed' },
    {
      ...base,
      name: "fault: failed upload of an expert's last tensor",
      budgetExperts: all,
      warmstart: 'plan',
      faults: { ...NO_FAULTS, uploadFails: [2] },
      arranged: 'upload-failed',
    },
    { ...base, name: 'fault: failed take (device 0)', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, takeFails: [3] }, arranged: 'take-failed' },
    { ...base, name: 'fault: failed issue', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, issueFails: [2] } },
    { ...base, name: 'fault: failed warmstart load (null weights)', budgetExperts: all, warmstart: 'plan', faults: { ...NO_FAULTS, loadFails: [3] } },
    {
      ...base,
      name: 'fault: failed warmstart upload, then swaps',
      budgetExperts: half,
      warmstart: 'plan',
      wantSwaps: true,
      swapPeriod: 2,
      faults: { ...NO_FAULTS, uploadFails: [2] },
      arranged: 'upload-failed',
    },
    {
      ...base,
      name: 'fault: failed staging copy in warmstart, then swaps',
      budgetExperts: half,
      warmstart: 'plan',
      wantSwaps: true,
      swapPeriod: 2,
      faults: { ...NO_FAULTS, stageFails: [1] },
    },
    { ...base, name: 'half, swaps, refill at the first swap', budgetExperts: half, wantSwaps: true, swapPeriod: 2, refillAtFirstSwap: true },
    { ...base, name: 'shutdown mid-fill', budgetExperts: all, warmstart: 'plan', shutdownAt: { phase: 'warmstart', thread: 'caller' } },
    { ...base, name: 'warmstart through a full ring (note_block, ring 1)', budgetExperts: all, warmstart: 'block', ringCapacity: 1, arranged: 'ring-full' },
    {
      ...base,
      name: 'shutdown with a group open',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      shutdownAt: { phase: 'decode', token: 12, layer: 0, groupOpen: true, thread: 'caller' },
      arranged: 'shutdown-with-group-open',
    },
    {
      ...base,
      name: 'shutdown with a swap parked on the open group',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      shutdownAtFirstSwap: true,
      arranged: 'swap-abandoned-at-shutdown',
    },
    ...trunkRows,
  ];
}
