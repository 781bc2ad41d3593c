/**
 * The bridge from the tier's vocabulary to the reference's: the engine configuration as
 * the reference reads it, and for each tier call the reference's program of it.
 */
import type { RamRef, TierCall } from '../../ops.js';
import type { TierConfig } from '../../tier/config.js';
import type { SpecCall } from '../../protocol_ref/call.js';
import type { SpecConfig } from '../../protocol_ref/config.js';
import { GatedCall } from '../../protocol_ref/gate.js';
import { IssueCall, TakeCall } from '../../protocol_ref/group.js';
import { InitCall } from '../../protocol_ref/init.js';
import type { SpecValue } from '../../protocol_ref/io.js';
import { NoteBlockCall, NoteCall, NotePlannedCall } from '../../protocol_ref/note.js';
import { EvictedTakeCall, ReplanCall } from '../../protocol_ref/replan.js';
import { ShutdownCall } from '../../protocol_ref/shutdown.js';
import { isResidentCall, preferCall, statsCall, statsMarkCall } from '../../protocol_ref/stats.js';
import { DenseCall, TrunkPlaceCall } from '../../protocol_ref/trunk.js';
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
    syncUploads: c.syncUploads,
    evictCapacity: c.evictCapacity,
    replanPerTick: c.replanPerTick,
  };
}

/** What the engine asked for and what the backend can do: the inputs of the tier's variants. */
export interface EngineInputs {
  readonly wantSwaps: boolean;
  readonly reclaims: boolean;
}

const has = (ram: RamRef | null): boolean => ram !== null;

const FALSE: SpecValue = { fn: 'bool', value: false };

/** The call inside the gate's expert door (a module function: the refinement builds one
 *  program per tier call, so nothing here is made anew per call but the program). */
function gated(inner: SpecCall, refused: SpecValue): SpecCall {
  return new GatedCall(inner, 'expert', refused);
}

/** A tier call's program: the call itself inside the gate's expert door, or its own gate sections. */
export function specCallOf(c: TierCall): SpecCall {
  switch (c.fn) {
    case 'init':
      return new InitCall();
    case 'shutdown':
      return new ShutdownCall();
    case 'dense_matmul':
      return new DenseCall(c.index);
    case 'trunk_place':
      return new TrunkPlaceCall();
    case 'note':
      return gated(new NoteCall({ layer: c.layer, eid: c.eid }, has(c.ram)), FALSE);
    case 'note_block':
      return gated(new NoteBlockCall({ layer: c.layer, eid: c.eid }, has(c.ram)), FALSE);
    case 'note_planned':
      return gated(new NotePlannedCall({ layer: c.layer, eid: c.eid }, has(c.ram)), FALSE);
    case 'plan_fill':
      return gated(new PlanFillCall(), { fn: 'plan_fill', keys: [] });
    case 'fill_wait':
      return gated(new FillWaitCall(), { fn: 'fill_wait', value: 'off' });
    case 'issue':
      return gated(new IssueCall(c.route.layer, c.route.eids), { fn: 'issue', mask: c.route.eids.map(() => false) });
    case 'take':
      return gated(new TakeCall(), { fn: 'take', ok: false, collected: [] });
    case 'release_ram':
      return gated(new ReleaseRamCall({ layer: c.layer, eid: c.eid }), FALSE);
    case 'resident_count':
      return gated(new ResidentCountCall(), { fn: 'count', value: 0 });
    case 'is_resident':
      return gated(isResidentCall({ layer: c.layer, eid: c.eid }), FALSE);
    case 'stats':
      return gated(statsCall(), { fn: 'stats', stats: null });
    case 'stats_mark':
      return gated(statsMarkCall(), FALSE);
    case 'replan':
      return gated(new ReplanCall(c.layer, c.counts, c.maxSwaps), { fn: 'pairs', pairs: [] });
    case 'evicted_take':
      return gated(new EvictedTakeCall(c.max), { fn: 'keys', keys: [] });
    case 'prefer':
      return gated(preferCall(c.layer, c.cands), { fn: 'mask', mask: c.cands.map(() => false) });
  }
}
