/**
 * The tier's one global state, guarded by the one mutex `mx` (PROTOCOL.md, "State").
 *
 * Every field below is read and written only with `mx` held, except where a comment
 * says otherwise. The checkers in model/checkers read it (never write it).
 */
import type { GroupRow, RamRef, StagingCopy, TensorHandle } from '../ops.js';
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
  readonly victim: { readonly layer: number; readonly eid: number } | null;
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
  readonly slots: Slot[][];
  readonly budget: number[];
  readonly used: number[];
  readonly ring: (RingEntry | null)[];
  qh: number;
  qt: number;
  qn: number;
  /** entries enqueued and not yet finished (resident, failed, or abandoned) */
  inflight: number;
  stop: boolean;
  /** the uploader has been started (init done) and not yet joined */
  uploaderTid: number;
  issueOpen: boolean;
  tick: number;
  /** per device: the rows of the group in flight (empty: none); decode thread only */
  readonly groups: GroupRow[][];
  /** shutdown already ran (second call is a no-op) */
  shutdownDone: boolean;
  /** dense trunk residents, per device */
  readonly dense: (TensorHandle | null)[];
  readonly counters: Counters;
}

export function createState(cfg: TierConfig): TierState {
  const slots: Slot[][] = [];
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
    slots.push(row);
  }
  return {
    cfg,
    expBytes: expertBytes(cfg),
    slots,
    budget: new Array<number>(cfg.devices).fill(0),
    used: new Array<number>(cfg.devices).fill(0),
    ring: new Array<RingEntry | null>(cfg.ringCapacity).fill(null),
    qh: 0,
    qt: 0,
    qn: 0,
    inflight: 0,
    stop: false,
    uploaderTid: -1,
    issueOpen: false,
    tick: 0,
    groups: Array.from({ length: cfg.devices }, () => []),
    shutdownDone: false,
    dense: new Array<TensorHandle | null>(cfg.devices).fill(null),
    counters: {
      uploads: 0,
      uploadFailures: 0,
      hits: 0,
      misses: 0,
      swaps: 0,
      swapsAbandoned: 0,
      queueFullSkips: 0,
    },
  };
}

export function slotOf(st: TierState, layer: number, eid: number): Slot {
  const slot = st.slots[layer]?.[eid];
  if (slot === undefined) throw new RangeError(`no slot for layer ${layer} expert ${eid}`);
  return slot;
}
