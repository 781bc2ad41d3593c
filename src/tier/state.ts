/**
 * The tier's one global state, guarded by the one mutex `mx` (PROTOCOL.md, "State").
 *
 * Every field below is read and written only with `mx` held, except `gate` (the
 * lifecycle gate's, gmx-guarded, gate.ts) and where a comment says otherwise. The slot
 * table and the ring are host arrays: init allocates them and shutdown frees them, so
 * between a shutdown and the next init they are empty and the gate refuses every expert
 * call. The checkers read this state (never write it).
 */
import type { ExpertKey, GroupRow, HostArray, RamRef, ReplanPair, StagingCopy, TensorHandle } from '../ops.js';
import type { TierConfig } from './config.js';
import { newGate, type DenseResident, type Gate } from './gate.js';
import { expertBytes } from './sizes.js';

export interface Slot {
  readonly layer: number;
  readonly eid: number;
  /** eid % devices */
  readonly home: number;
  heat: number;
  resident: boolean;
  queued: boolean;
  planned: boolean;
  /** gate, up, down device tensors once resident; null otherwise */
  tensors: TensorHandle[] | null;
  /** the engine's RAM weights, as last lent (null: none to offer) */
  ram: RamRef | null;
}

export interface RingEntry {
  readonly layer: number;
  readonly eid: number;
  readonly staging: StagingCopy;
  /** the resident expert a swap evicts, or null for a plain upload */
  readonly victim: ExpertKey | null;
}

export type { DenseResident };

export interface Counters {
  uploads: number;
  uploadFailures: number;
  hits: number;
  misses: number;
  swaps: number;
  swapsAbandoned: number;
  queueFullSkips: number;
}

export interface TierState {
  readonly cfg: TierConfig;
  /** exp_bytes: what one expert is charged on its home device */
  readonly expBytes: number;
  /** the lifecycle gate (gmx-guarded; it outlives every generation of the tables) */
  readonly gate: Gate;
  /** init succeeded and teardown has not released the tables */
  active: boolean;
  /** the host arrays init allocated (freed at shutdown) */
  hostArrays: HostArray[];
  slots: Slot[][];
  budget: number[];
  used: number[];
  ring: (RingEntry | null)[];
  qh: number;
  qt: number;
  qn: number;
  /** entries enqueued and not yet finished (resident, failed, or abandoned) */
  inflight: number;
  stop: boolean;
  /** the uploader's thread, -1 when none runs */
  uploaderTid: number;
  issueOpen: boolean;
  /** per device: the rows of the group in flight, not yet collected (empty: none) */
  groups: GroupRow[][];
  tick: number;
  /** per trunk offer: its device tensor once placed (null: on the CPU) */
  dense: (DenseResident | null)[];
  /** re-plan pairs planned and not yet started (the ring was full), oldest first */
  pending: ReplanPair[];
  /** the eviction ring: experts evicted and not yet reported, oldest first (bounded) */
  evicted: ExpertKey[];
  /** evictions the eviction ring had no room for */
  evictedDropped: number;
  /** hits and misses at the last stats_mark */
  mark: { hits: number; misses: number };
  readonly counters: Counters;
}

/** The tier before init: off, with no host arrays. */
export function createState(cfg: TierConfig): TierState {
  return {
    cfg,
    expBytes: expertBytes(cfg),
    gate: newGate(cfg.trunk.length),
    active: false,
    hostArrays: [],
    slots: [],
    budget: [],
    used: [],
    ring: [],
    qh: 0,
    qt: 0,
    qn: 0,
    inflight: 0,
    stop: false,
    uploaderTid: -1,
    issueOpen: false,
    groups: [],
    tick: cfg.startTick,
    dense: [],
    pending: [],
    evicted: [],
    evictedDropped: 0,
    mark: { hits: 0, misses: 0 },
    counters: { uploads: 0, uploadFailures: 0, hits: 0, misses: 0, swaps: 0, swapsAbandoned: 0, queueFullSkips: 0 },
  };
}

/** Fresh tables for an init: every slot cold, budgets to be set, the ring empty. */
export function resetTables(st: TierState): void {
  const cfg = st.cfg;
  st.slots = [];
  for (let layer = 0; layer < cfg.layers; layer++) {
    const row: Slot[] = [];
    for (let eid = 0; eid < cfg.experts; eid++) {
      row.push({
        layer,
        eid,
        home: eid % cfg.devices,
        heat: 0,
        resident: false,
        queued: false,
        planned: false,
        tensors: null,
        ram: null,
      });
    }
    st.slots.push(row);
  }
  st.budget = new Array<number>(cfg.devices).fill(0);
  st.used = new Array<number>(cfg.devices).fill(0);
  st.ring = new Array<RingEntry | null>(cfg.ringCapacity).fill(null);
  st.groups = Array.from({ length: cfg.devices }, () => []);
  st.dense = new Array<DenseResident | null>(cfg.trunk.length).fill(null);
  st.qh = 0;
  st.qt = 0;
  st.qn = 0;
  st.inflight = 0;
  st.stop = false;
  st.issueOpen = false;
  st.tick = cfg.startTick;
  st.pending = [];
  st.evicted = [];
  st.evictedDropped = 0;
  st.mark = { hits: 0, misses: 0 };
  const c = st.counters;
  c.uploads = c.uploadFailures = c.hits = c.misses = c.swaps = c.swapsAbandoned = c.queueFullSkips = 0;
}

export function slotOf(st: TierState, layer: number, eid: number): Slot {
  const slot = st.slots[layer]?.[eid];
  if (slot === undefined) throw new RangeError(`no slot for layer ${layer} expert ${eid}`);
  return slot;
}
