/**
 * The C tier's state as the checkers read it: a TierState (src/tier/state.ts) kept from
 * the tier's own events. Every event under mx (or an exclusive section) carries the
 * protocol variables after its action (native/tier/EVENTS.md): the counters inflight, qn,
 * waiters and tick, the flags stop, issue_open and groups_busy, the used and budget of its
 * device, and the heat and flags of its expert and of a swap's victim; those are copied.
 * What no event carries is implied by the event's kind, as the protocol defines it: the
 * ring (pushed at enqueue, popped at dequeue), the groups (routed, published, claimed),
 * the slots' tensors (the last three parts the backend uploaded for the expert), the
 * counters (an upload done or failed, a hit or a miss, a skip, an abandoned swap), the
 * eviction ring (a swap's upload finished, evicted_take) and the decay of every heat at a
 * tick that says so. The gate is the last gate event's, set at its release of gmx
 * (gateFrom, called by the replay).
 *
 * Invariants: the shadow changes only at a tier event (never at a backend or engine
 * record), so it is the tier's state as the tier reported it; an event that contradicts
 * what the shadow knows about the ring (the uploader takes what is not the oldest entry)
 * is a violation of the uploader's protocol.
 */
import type { ExpertKey, GroupRow, MarkName, RamRef, StagingCopy, TensorHandle } from '../../ops.js';
import type { TierConfig } from '../../tier/config.js';
import { createState, resetTables, slotOf, type Slot, type TierState } from '../../tier/state.js';
import { Violation } from '../violation.js';
import type { TierEvent } from './records.js';
import { FLAG } from './schema.js';
import type { LifeState } from '../../tier/gate.js';

/** TT_LIFE_* by number */
const LIFE: readonly LifeState[] = ['DEAD', 'LIVE', 'TEARING_DOWN'];

/** A mark the tier's event stands for (src/ops.ts MarkName), for the checkers. */
export interface ShadowMark {
  readonly what: MarkName;
  readonly detail: string;
}

const HELD_RAM: RamRef = { __opaque: 'ram' } as unknown as RamRef;
const key = (layer: number, eid: number): number => layer * 65536 + eid;

export class ShadowTier {
  readonly st: TierState;
  /** the last three parts the backend uploaded for each expert */
  private readonly parts = new Map<number, TensorHandle[]>();
  /** per thread: the last staging copy it made, and the rows of the group it is building */
  private readonly staged = new Map<number, StagingCopy>();
  private readonly building = new Map<number, GroupRow[][]>();
  private readonly failed = new Set<number>();

  constructor(cfg: TierConfig) {
    this.st = createState(cfg);
  }

  uploaded(layer: number, eid: number, part: number, t: TensorHandle): void {
    const p = this.parts.get(key(layer, eid)) ?? [];
    p[part] = t;
    this.parts.set(key(layer, eid), p);
  }

  stagedBy(tid: number, s: StagingCopy): void {
    this.staged.set(tid, s);
  }

  /** The uploader starts: from its first step on, the state is shared (init's last act). */
  started(tid: number): void {
    this.st.active = true;
    // the C tier's gate is read by its events (records.ts); the shadow's says the tier is live
    this.st.gate.state = 'LIVE';
    this.st.uploaderTid = tid;
  }

  /** The gate as a gate event reports it after its action (EVENTS.md, "Gate events"). */
  gateFrom(e: TierEvent): void {
    const g = this.st.gate;
    g.state = LIFE[e.life] ?? g.state;
    g.live = e.live;
    g.wantX = e.wantX;
    g.x = e.x;
  }

  placeTrunk(index: number, dev: number, tensor: TensorHandle): void {
    this.st.dense[index] = { dev, tensor };
  }

  /** Applies one tier event of thread `tid`; returns the mark it stands for, if any. */
  apply(e: TierEvent, tid: number): ShadowMark | null {
    const before = this.implied(e, tid, true);
    if (e.lk === 1 || e.lk === 5) this.snapshot(e);
    return this.implied(e, tid, false) ?? before;
  }

  private snapshot(e: TierEvent): void {
    const st = this.st;
    st.inflight = e.inflight;
    st.qn = e.qn;
    st.tick = e.tick;
    st.stop = (e.flags & FLAG.stop) !== 0;
    st.issueOpen = (e.flags & FLAG.issueOpen) !== 0;
    if (e.dev >= 0 && e.dev < st.cfg.devices && st.used.length > 0) {
      st.used[e.dev] = e.used;
      st.budget[e.dev] = e.budget;
    }
    const s = this.slotAt(e.layer, e.eid);
    if (s !== null) {
      s.heat = e.heat;
      this.flags(s, e.flags);
    }
    const v = this.slotAt(e.vlayer, e.veid);
    if (v !== null) this.flags(v, e.vflags);
  }

  private flags(s: Slot, f: number): void {
    s.resident = (f & FLAG.resident) !== 0;
    s.queued = (f & FLAG.queued) !== 0;
    s.planned = (f & FLAG.planned) !== 0;
    s.ram = (f & FLAG.ram) !== 0 ? (s.ram ?? HELD_RAM) : null;
    if ((f & FLAG.tensors) === 0) s.tensors = null;
    else if (s.tensors === null) s.tensors = this.parts.get(key(s.layer, s.eid)) ?? [];
  }

  private slotAt(layer: number, eid: number): Slot | null {
    return layer >= 0 && eid >= 0 ? (this.st.slots[layer]?.[eid] ?? null) : null;
  }

  /** What an event implies beyond its snapshot: `first` before the snapshot, else after. */
  private implied(e: TierEvent, tid: number, first: boolean): ShadowMark | null {
    if (first) {
      if (e.ev === 'init_stage' && e.value === 3 && e.value2 === 1) resetTables(this.st);
      return null;
    }
    switch (e.ev) {
      case 'init_stage':
        return this.initFailed(e);
      case 'budget':
        (this.st as { expBytes: number }).expBytes = e.value2;
        return null;
      case 'enqueue':
        return this.enqueued(e, tid);
      case 'refuse':
        if (e.value === 4) this.st.counters.queueFullSkips++;
        return null;
      case 'dequeue':
        return this.dequeued(e);
      case 'evicted_taken':
        this.st.evicted.splice(0, e.value);
        return null;
      case 'tick':
        if ((e.value2 & 1) !== 0) for (const row of this.st.slots) for (const s of row) s.heat = s.heat >>> 1;
        return null;
      default:
        return this.uploadsAndGroups(e, tid);
    }
  }

  private initFailed(e: TierEvent): ShadowMark | null {
    if (e.value2 !== 0) return null;
    const st = this.st;
    st.active = false;
    st.gate.state = 'DEAD';
    st.slots = [];
    st.dense = st.dense.map(() => null);
    // a failed init holds nothing: its trunk's charges go with the tables (tt_trunk_uncharge)
    st.used = st.used.map(() => 0);
    return null;
  }

  private enqueued(e: TierEvent, tid: number): ShadowMark | null {
    const st = this.st;
    const victim: ExpertKey | null = e.vlayer >= 0 ? { layer: e.vlayer, eid: e.veid } : null;
    const staging = this.staged.get(tid) ?? ({ __opaque: 'staging' } as unknown as StagingCopy);
    st.ring[st.qt] = { layer: e.layer, eid: e.eid, staging, victim };
    st.qt = (st.qt + 1) % st.cfg.ringCapacity;
    if (victim === null) return null;
    return { what: 'swap-enqueued', detail: `L${e.layer}E${e.eid}<-L${victim.layer}E${victim.eid}` };
  }

  /** A swap's upload finished (its victim's tensors freed): an eviction, kept while the ring has room. */
  private evicted(e: TierEvent): void {
    const st = this.st;
    if (e.vlayer < 0) return;
    if (st.evicted.length < st.cfg.evictCapacity) st.evicted.push({ layer: e.vlayer, eid: e.veid });
    else st.evictedDropped++;
  }

  private dequeued(e: TierEvent): null {
    const st = this.st;
    const head = st.ring[st.qh] ?? null;
    if (head === null || head.layer !== e.layer || head.eid !== e.eid) {
      const oldest = head === null ? 'the ring is empty' : `its oldest entry is L${head.layer}E${head.eid}`;
      throw new Violation('SPEC-UPLOADER', `the uploader took L${e.layer}E${e.eid} from the ring, but ${oldest}`);
    }
    st.ring[st.qh] = null;
    st.qh = (st.qh + 1) % st.cfg.ringCapacity;
    return null;
  }

  private uploadsAndGroups(e: TierEvent, tid: number): ShadowMark | null {
    const st = this.st;
    const c = st.counters;
    switch (e.ev) {
      case 'swap_abandoned':
        c.swapsAbandoned++;
        return { what: 'swap-abandoned', detail: `L${e.layer}E${e.eid}` };
      case 'upload_done':
        this.evicted(e);
        slotOf(st, e.layer, e.eid).tensors = this.parts.get(key(e.layer, e.eid)) ?? [];
        c.uploads++;
        if (e.vlayer >= 0) c.swaps++;
        return null;
      case 'upload_failed':
        this.evicted(e);
        c.uploadFailures++;
        return { what: 'upload-failed', detail: `L${e.layer}E${e.eid}` };
      case 'routed':
        this.routed(e, tid);
        return null;
      case 'issue_failed':
        this.failed.add(e.dev);
        return { what: 'issue-failed', detail: `dev${e.dev}` };
      case 'groups_published':
        this.published(tid);
        return null;
      case 'take_claimed':
        st.groups = st.groups.map(() => []);
        return null;
      case 'take_failed':
        return { what: 'take-failed', detail: `dev${e.dev}` };
      default:
        return this.teardown(e);
    }
  }

  private routed(e: TierEvent, tid: number): void {
    const rows = this.building.get(tid) ?? Array.from({ length: this.st.cfg.devices }, () => []);
    if (e.value === 0) for (const r of rows) r.length = 0;
    if (e.value === 0) this.failed.clear();
    this.building.set(tid, rows);
    if (e.value2 === 1) {
      const s = slotOf(this.st, e.layer, e.eid);
      rows[e.dev]?.push({ layer: e.layer, eid: e.eid, tensors: s.tensors ?? [] });
      this.st.counters.hits++;
    } else {
      this.st.counters.misses++;
    }
  }

  private published(tid: number): void {
    const rows = this.building.get(tid) ?? [];
    this.st.groups = this.st.groups.map((_, dev) => (this.failed.has(dev) ? [] : [...(rows[dev] ?? [])]));
    this.failed.clear();
  }

  private teardown(e: TierEvent): ShadowMark | null {
    const st = this.st;
    if (e.ev === 'drained' && e.value > 0) {
      st.groups = st.groups.map(() => []);
    } else if (e.ev === 'released' && st.active) {
      // the tier holds nothing from here on: its tables are given up (PROTOCOL.md, shutdown)
      st.slots = [];
      st.ring = st.ring.map(() => null);
      st.qn = 0;
      st.dense = st.dense.map(() => null);
      st.uploaderTid = -1;
      st.active = false;
      st.gate.state = 'DEAD';
    }
    return null;
  }
}
