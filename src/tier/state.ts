/**
 * The tier's one global state, guarded by the one mutex `mx` (PROTOCOL.md, "State").
 *
 * Every field below is read and written only with `mx` held, except where a comment
 * says otherwise. The slot table and the ring are host arrays: init allocates them and
 * shutdown frees them, so between a shutdown and the next init they are empty and every
 * call finds the tier off. The checkers read this state (never write it).
 */
import type { ExpertKey, GroupRow, HostArray, RamRef, StagingCopy, TensorHandle } from '../ops.js';
import type { TierConfig } from './config.js';
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

/** A trunk matrix resident on a device. */
export interface DenseResident {
  readonly dev: number;
  readonly tensor: TensorHandle;
}

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
  /** init succeeded and shutdown has not finished: every call checks this first */
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
  /** the decode thread issues or collects groups outside the lock: shutdown waits */
  groupsBusy: boolean;
  /** shutdown collected the open groups itself: the issuer's take reports them lost */
  groupsDrained: boolean;
  /** threads inside fill_wait, note_block or note_planned: shutdown waits until they leave */
  waitersInside: number;
  /** resident dense GEMVs reading a dense tensor outside the lock */
  denseInflight: number;
  tick: number;
  /** per trunk offer: its device tensor once placed (null: on the CPU) */
  dense: (DenseResident | null)[];
  readonly counters: Counters;
}

/** The tier before init: off, with no host arrays. */
export function createState(cfg: TierConfig): TierState {
  return {
    cfg,
    expBytes: expertBytes(cfg),
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
    groupsBusy: false,
    groupsDrained: false,
    waitersInside: 0,
    denseInflight: 0,
    tick: cfg.startTick,
    dense: [],
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
  st.groupsBusy = false;
  st.groupsDrained = false;
  st.waitersInside = 0;
  st.denseInflight = 0;
  st.tick = cfg.startTick;
  const c = st.counters;
  c.uploads = c.uploadFailures = c.hits = c.misses = c.swaps = c.swapsAbandoned = c.queueFullSkips = 0;
}

export function slotOf(st: TierState, layer: number, eid: number): Slot {
  const slot = st.slots[layer]?.[eid];
  if (slot === undefined) throw new RangeError(`no slot for layer ${layer} expert ${eid}`);
  return slot;
}
