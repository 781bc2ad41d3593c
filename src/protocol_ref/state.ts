/**
 * The reference's state: plain data, one field per fact the protocol names (PROTOCOL.md,
 * "State"), and nothing the protocol does not. The refinement check compares it, field by
 * field, with the abstraction of the tier's state after every critical section.
 */
import { expBytes, type SpecConfig } from './config.js';

export interface SpecSlot {
  heat: number;
  resident: boolean;
  queued: boolean;
  planned: boolean;
  /** holds device tensors (resident, or a victim whose eviction is not carried out yet) */
  tensors: boolean;
  /** holds a RAM pointer the engine lent */
  ram: boolean;
}

export interface SpecKey {
  readonly layer: number;
  readonly eid: number;
}

export interface SpecEntry extends SpecKey {
  readonly victim: SpecKey | null;
}

/** A re-plan pair: the victim (layer, victim) leaves, the newcomer comes in. */
export interface SpecPair {
  readonly layer: number;
  readonly victim: number;
  readonly newcomerLayer: number;
  readonly newcomer: number;
}

export type SpecLife = 'DEAD' | 'LIVE' | 'TEARING_DOWN';

/** The lifecycle gate (PROTOCOL.md, "Lifecycle gate"): outside the tables, under gmx. */
export interface SpecGate {
  state: SpecLife;
  live: number;
  wantX: number;
  x: number;
  /** per trunk offer: the device of a matrix placed while DEAD, or null */
  deadTrunk: (number | null)[];
  trunkBusy: boolean;
}

export interface SpecCounters {
  uploads: number;
  uploadFailures: number;
  hits: number;
  misses: number;
  swaps: number;
  swapsAbandoned: number;
  queueFullSkips: number;
}

export interface SpecState {
  readonly cfg: SpecConfig;
  readonly exp: number;
  readonly gate: SpecGate;
  active: boolean;
  slots: SpecSlot[][];
  budget: number[];
  used: number[];
  /** the upload ring, oldest first */
  ring: SpecEntry[];
  inflight: number;
  stop: boolean;
  issueOpen: boolean;
  /** per device, the experts of the group in flight not yet collected */
  groups: number[][];
  tick: number;
  /** per trunk offer: the device it is resident on, or null (computed on the CPU) */
  dense: (number | null)[];
  /** re-plan pairs not started yet, oldest first */
  pending: SpecPair[];
  /** the eviction ring, oldest first */
  evicted: SpecKey[];
  evictedDropped: number;
  /** hits and misses at the last stats_mark */
  mark: { hits: number; misses: number };
  counters: SpecCounters;
}

export function newSpecState(cfg: SpecConfig): SpecState {
  return {
    cfg,
    exp: expBytes(cfg),
    gate: {
      state: 'DEAD',
      live: 0,
      wantX: 0,
      x: 0,
      deadTrunk: new Array<number | null>(cfg.trunk.length).fill(null),
      trunkBusy: false,
    },
    active: false,
    slots: [],
    budget: [],
    used: [],
    ring: [],
    inflight: 0,
    stop: false,
    issueOpen: false,
    groups: [],
    tick: cfg.startTick,
    dense: [],
    pending: [],
    evicted: [],
    evictedDropped: 0,
    mark: { hits: 0, misses: 0 },
    counters: zeroCounters(),
  };
}

export function zeroCounters(): SpecCounters {
  return { uploads: 0, uploadFailures: 0, hits: 0, misses: 0, swaps: 0, swapsAbandoned: 0, queueFullSkips: 0 };
}

export function home(s: SpecState, eid: number): number {
  return eid % s.cfg.devices;
}

export function slot(s: SpecState, k: SpecKey): SpecSlot {
  const x = s.slots[k.layer]?.[k.eid];
  if (x === undefined) throw new SpecError('SPEC-STATE', `the protocol has no expert L${k.layer}E${k.eid}`);
  return x;
}

/** The family of a divergence, as the refinement check reports it. */
export type SpecFamily =
  | 'SPEC-INIT'
  | 'SPEC-PLAN'
  | 'SPEC-FILL'
  | 'SPEC-ENQUEUE'
  | 'SPEC-ADMISSION'
  | 'SPEC-DECAY'
  | 'SPEC-HOME'
  | 'SPEC-MASK'
  | 'SPEC-TAKE'
  | 'SPEC-COUNTERS'
  | 'SPEC-HEAT-FILE'
  | 'SPEC-UPLOADER'
  | 'SPEC-SHUTDOWN'
  | 'SPEC-WAKEUP'
  | 'SPEC-STATE'
  | 'SPEC-GATE'
  | 'SPEC-REPLAN'
  | 'SPEC-EVICTED'
  | 'SPEC-SYNC-MODE'
  | 'SPEC-PREFER'
  | 'SPEC-STATS';

/** The tier did something the protocol does not allow at this point. */
export class SpecError extends Error {
  constructor(
    readonly family: SpecFamily,
    message: string,
  ) {
    super(message);
    this.name = 'SpecError';
  }
}
