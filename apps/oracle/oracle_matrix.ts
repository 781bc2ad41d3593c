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
import { NO_FAULTS } from '../../src/engine/fault_sites.js';
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
  const b: Budgets = {
    none: budget(0),
    one: budget(1),
    half: budget(Math.max(1, Math.ceil(perDevice / 2))),
    all: budget(perDevice),
  };
  const base: OracleRunSpec = {
    name: '',
    budgetExperts: b.none,
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
    ...residencyRows(base, b, model),
    ...slowRows(base, b),
    ...faultRows(base, b),
    ...arrangedRows(base, b),
    ...laterRows(base, b, model),
    ...trunkRows(base, b, model),
  ];
}

/**
 * The protocol's later features (PROTOCOL.md's last section): re-plan after the prompt
 * (each layer, and the whole table) with the eviction ring polled, synchronous uploads,
 * prefer-resident routing (the CLI gives the float64 reference the run's routing, and
 * runs the same routing again for the bit comparison: residency may not change a bit),
 * init and a second shutdown from threads of their own racing the engine's shutdown,
 * and a stats thread hammering is_resident during decode and the teardown.
 */
function laterRows(base: OracleRunSpec, b: Budgets, model?: MatrixModel): OracleRunSpec[] {
  const { half } = b;
  const swaps: OracleRunSpec = { ...base, budgetExperts: half, wantSwaps: true, swapPeriod: 2 };
  const warm: OracleRunSpec = { ...base, budgetExperts: half, warmstart: 'plan' };
  const window = Math.min(model?.experts ?? 8, 4);
  return [
    {
      ...warm,
      name: 're-plan after each prompt layer',
      wantSwaps: true,
      replan: { form: 'layer', maxSwaps: 4, prefill: 4 },
    },
    {
      ...warm,
      name: 're-plan with the whole table, eviction ring polled',
      wantSwaps: true,
      replan: { form: 'table', maxSwaps: 8, prefill: 4 },
      evictedPoll: 2,
      evictCapacity: 4,
      ringCapacity: 2,
    },
    { ...swaps, name: 'synchronous uploads, swaps', syncUploads: true, evictedPoll: 8 },
    { ...warm, name: 'prefer-resident routing, half resident', prefer: { window, keep: 1 } },
    { ...swaps, name: 'prefer-resident routing, sync uploads, swaps', syncUploads: true, prefer: { window, keep: 1 } },
    { ...warm, name: 'init and a second shutdown racing the shutdown', initRacer: true, secondShutdown: true },
    // rounds without end: it stops at its first call the gate refuses (the teardown)
    { ...swaps, name: 'a stats thread during decode and teardown', statsThread: 1_000_000_000 },
  ];
}

interface Budgets {
  readonly none: readonly number[];
  readonly one: readonly number[];
  readonly half: readonly number[];
  readonly all: readonly number[];
}

/** Budgets, starts, swaps, streaming through the RAM LRUs. */
function residencyRows(base: OracleRunSpec, b: Budgets, model?: MatrixModel): OracleRunSpec[] {
  const { one, half, all } = b;
  const streamingSwaps: OracleRunSpec = {
    ...base,
    budgetExperts: half,
    streaming: true,
    wantSwaps: true,
    swapPeriod: 2,
  };
  const lruSizes =
    model === undefined
      ? []
      : [...new Set([1, 2, Math.max(1, Math.floor(model.experts / 2))])].filter((n) => n < model.experts);
  return [
    { ...base, name: 'cpu-only (nothing resident)' },
    { ...base, name: 'one expert, cold', budgetExperts: one },
    { ...base, name: 'one expert, warmstart', budgetExperts: one, warmstart: 'plan' },
    { ...base, name: 'half, cold', budgetExperts: half },
    { ...base, name: 'half, warmstart', budgetExperts: half, warmstart: 'plan' },
    { ...base, name: 'everything, cold', budgetExperts: all },
    {
      ...base,
      name: 'everything, warmstart, no early reserve',
      budgetExperts: all,
      warmstart: 'plan',
      loaders: 4,
      reserve: false,
    },
    { ...base, name: 'everything, warmstart', budgetExperts: all, warmstart: 'plan', loaders: 4 },
    { ...base, name: 'half, swaps', budgetExperts: half, wantSwaps: true, swapPeriod: 2, useHeatFile: true },
    {
      ...base,
      name: 'half, swaps, warm heat file',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      useHeatFile: true,
      warmstart: 'plan',
    },
    { ...streamingSwaps, name: 'half, streaming, swaps' },
    ...lruSizes.map(
      (n): OracleRunSpec => ({ ...streamingSwaps, name: `half, streaming, swaps, RAM LRU ${n}`, lruPerLayer: n }),
    ),
  ];
}

/** A slow bus and a slow device: groups that meet copies still on their way, takes that wait. */
function slowRows(base: OracleRunSpec, b: Budgets): OracleRunSpec[] {
  const { half, all } = b;
  return [
    {
      ...base,
      name: 'slow bus (2 ms a copy), warmstart',
      budgetExperts: all,
      warmstart: 'plan',
      loaders: 4,
      copyDelayUs: 2000,
    },
    {
      // promotions during decode on a slow bus: the next token's groups read experts whose
      // copies are still on their way (a warmstart's copies mostly land before decode)
      ...base,
      name: 'slow bus (2 ms a copy), half, swaps',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      copyDelayUs: 2000,
    },
    {
      ...base,
      name: 'slow device (2 ms a group), warmstart',
      budgetExperts: all,
      warmstart: 'plan',
      loaders: 4,
      groupDelayUs: 2000,
    },
  ];
}

/** Injected faults: on the native engine's sites (upload, take, issue) and the host's (load, stage). */
function faultRows(base: OracleRunSpec, b: Budgets): OracleRunSpec[] {
  const { half, all } = b;
  const warm: OracleRunSpec = { ...base, budgetExperts: all, warmstart: 'plan' };
  const warmSwaps: OracleRunSpec = { ...base, budgetExperts: half, warmstart: 'plan', wantSwaps: true, swapPeriod: 2 };
  return [
    { ...warm, name: 'fault: failed upload', faults: { ...NO_FAULTS, uploadFails: [4] }, arranged: 'upload-failed' },
    {
      ...warm,
      name: "fault: failed upload of an expert's last tensor",
      faults: { ...NO_FAULTS, uploadFails: [2] },
      arranged: 'upload-failed',
    },
    {
      ...warm,
      name: 'fault: failed take (device 0)',
      faults: { ...NO_FAULTS, takeFails: [3] },
      arranged: 'take-failed',
    },
    { ...warm, name: 'fault: failed issue', faults: { ...NO_FAULTS, issueFails: [2] } },
    { ...warm, name: 'fault: failed warmstart load (null weights)', faults: { ...NO_FAULTS, loadFails: [3] } },
    {
      ...warmSwaps,
      name: 'fault: failed warmstart upload, then swaps',
      faults: { ...NO_FAULTS, uploadFails: [2] },
      arranged: 'upload-failed',
    },
    {
      ...warmSwaps,
      name: 'fault: failed staging copy in warmstart, then swaps',
      faults: { ...NO_FAULTS, stageFails: [1] },
    },
    {
      // #1341's situation: the expert whose staging failed keeps its RAM pointer through
      // the warmstart, the heat file makes it hot before it is routed again, and a round
      // at every tick promotes it from that pointer
      ...warmSwaps,
      name: 'fault: failed staging copy in a heat-file warmstart, then swaps at every tick',
      faults: { ...NO_FAULTS, stageFails: [1] },
      useHeatFile: true,
      swapPeriod: 1,
    },
  ];
}

/** Shutdowns and refills at the moments the catalogue's defects need. */
function arrangedRows(base: OracleRunSpec, b: Budgets): OracleRunSpec[] {
  const { half, all } = b;
  const swaps: OracleRunSpec = { ...base, budgetExperts: half, wantSwaps: true, swapPeriod: 2 };
  return [
    { ...swaps, name: 'half, swaps, refill at the first swap', refillAtFirstSwap: true },
    {
      ...base,
      name: 'shutdown mid-fill',
      budgetExperts: all,
      warmstart: 'plan',
      shutdownAt: { phase: 'warmstart', thread: 'caller' },
    },
    {
      ...base,
      name: 'warmstart through a full ring (note_block, ring 1)',
      budgetExperts: all,
      warmstart: 'block',
      ringCapacity: 1,
      arranged: 'ring-full',
    },
    {
      ...swaps,
      name: 'shutdown with a group open',
      shutdownAt: { phase: 'decode', token: 12, layer: 0, groupOpen: true, thread: 'caller' },
      arranged: 'shutdown-with-group-open',
    },
    {
      ...swaps,
      name: 'shutdown with a swap parked on the open group',
      shutdownAtFirstSwap: true,
      arranged: 'swap-abandoned-at-shutdown',
    },
  ];
}

/** For a model with the int8 trunk: the trunk alone, half of it, the experts alone, both. */
function trunkRows(base: OracleRunSpec, b: Budgets, model?: MatrixModel): OracleRunSpec[] {
  if (model?.int8Trunk !== true) return [];
  const { half, all } = b;
  return [
    { ...base, name: 'trunk only (no expert resident)', trunk: 'all' },
    { ...base, name: 'half the trunk, by value per byte', trunk: 'half' },
    { ...base, name: 'experts only (trunk on the CPU)', budgetExperts: all, warmstart: 'plan', loaders: 4 },
    { ...base, name: 'trunk and experts', budgetExperts: all, warmstart: 'plan', loaders: 4, trunk: 'all' },
    {
      ...base,
      name: 'trunk and half the experts, swaps',
      budgetExperts: half,
      wantSwaps: true,
      swapPeriod: 2,
      trunk: 'all',
    },
    {
      ...base,
      name: 'trunk, streaming, RAM LRU 2',
      budgetExperts: half,
      streaming: true,
      wantSwaps: true,
      swapPeriod: 2,
      lruPerLayer: 2,
      trunk: 'all',
    },
  ];
}
