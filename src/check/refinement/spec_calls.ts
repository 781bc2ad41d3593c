/**
 * The bridge from the tier's vocabulary to the reference's: the engine configuration as
 * the reference reads it, and for each tier call the reference's program of it.
 */
import type { RamRef, TierCall } from '../../ops.js';
import type { TierConfig } from '../../tier/config.js';
import type { SpecCall } from '../../protocol_ref/call.js';
import type { SpecConfig } from '../../protocol_ref/config.js';
import { DenseCall, IssueCall, TakeCall } from '../../protocol_ref/group.js';
import { InitCall } from '../../protocol_ref/init.js';
import { NoteBlockCall, NoteCall, NotePlannedCall } from '../../protocol_ref/note.js';
import { ShutdownCall } from '../../protocol_ref/shutdown.js';
import { FillWaitCall, PlanFillCall, ReleaseRamCall, ResidentCountCall } from '../../protocol_ref/warmstart.js';

/**
 * The engine's configuration as the reference reads it. What the tier derives for itself
 * is derived here again from the run's inputs, never taken from the tier: swaps happen
 * when the engine wants them and the backend reclaims freed memory (a tier that turned
 * them off on its own would otherwise be held to a reference that agreed).
 */
export function specConfigOf(c: TierConfig, inputs: EngineInputs): SpecConfig {
  return {
    layers: c.layers,
    experts: c.experts,
    devices: c.devices,
    topk: c.topk,
    format: c.expertFormat,
    group: c.groupSize,
    cap: c.ramCapacity,
    weightBytes: c.weightBytes,
    scaleBytes: c.scaleBytes,
    budget: c.budgetBytes,
    reserveBytes: c.reserveBytes,
    ringCapacity: c.ringCapacity,
    swaps: inputs.wantSwaps && inputs.reclaims,
    streaming: c.streaming,
    heatFile: c.heatFile,
    swapPeriod: c.swapPeriod,
    decayPeriod: c.decayPeriod,
    startTick: c.startTick,
    trunk: c.trunk,
  };
}

/** What the engine asked for and what the backend can do: the inputs of the tier's variants. */
export interface EngineInputs {
  readonly wantSwaps: boolean;
  readonly reclaims: boolean;
}

const has = (ram: RamRef | null): boolean => ram !== null;

export function specCallOf(c: TierCall): SpecCall {
  switch (c.fn) {
    case 'init':
      return new InitCall();
    case 'note':
      return new NoteCall({ layer: c.layer, eid: c.eid }, has(c.ram));
    case 'note_block':
      return new NoteBlockCall({ layer: c.layer, eid: c.eid }, has(c.ram));
    case 'note_planned':
      return new NotePlannedCall({ layer: c.layer, eid: c.eid }, has(c.ram));
    case 'plan_fill':
      return new PlanFillCall();
    case 'fill_wait':
      return new FillWaitCall();
    case 'issue':
      return new IssueCall(c.route.layer, c.route.eids);
    case 'take':
      return new TakeCall();
    case 'dense_matmul':
      return new DenseCall(c.index);
    case 'shutdown':
      return new ShutdownCall();
    case 'release_ram':
      return new ReleaseRamCall({ layer: c.layer, eid: c.eid });
    case 'resident_count':
      return new ResidentCountCall();
  }
}
