/**
 * Accounting invariants, checked whenever mx is released (the protocol's state must then
 * be consistent): ACC-INFLIGHT, ACC-BUDGET, ACC-FOOTPRINT, DEV-BUDGET.
 */
import type { Checker } from '../checker.js';
import { Violation } from '../violation.js';
import { deviceFootprint } from '../allocator.js';
import type { CheckContext } from '../checked_world.js';
import { TIER_SLOT_FIELDS, watchOf, type TableReader, type TableWatch } from '../table_watch.js';
import type { Slot } from '../../tier/state.js';

/**
 * `slotsGuarded`: the tier's threads write the slot table only through the read guard,
 * which catches a change of a slot without mx at the write (guarded_reads.ts): the digest
 * then leaves the table out and costs the same whatever its size.
 */
export function accountingChecker(ctx: CheckContext, watchSlots = false, slotsGuarded = false): Checker {
  const { st, world } = ctx;
  const devices = st.cfg.devices;
  const slotTotals = new SlotTotals(ctx, watchSlots);
  // the budget init granted: a device-full failure lowers budget to used, and on a
  // fill-once arena the failed upload's partial slices stay consumed (bounded, once)
  const granted = new Array<number>(devices).fill(0);
  // a fill-once arena keeps the slices an init rollback frees (the trunk placed before a
  // failed thread start): allowed, once per failed init, and counted here
  const keptByRollback = new Array<number>(devices).fill(0);
  const inInit = new Set<number>();
  // what each trunk matrix really takes on its device (the allocator's rule, not the tier's)
  const denseCharge = st.cfg.trunk.map(
    (o) => deviceFootprint(o.weightBytes) + (o.scaleBytes > 0 ? deviceFootprint(o.scaleBytes) : 0),
  );
  const trunk = new Array<number>(devices).fill(0);
  return {
    memory: { granted, keptByRollback, inInit, slotTotals },
    onMark(_rt, th, op) {
      if (op.k === 'call' && op.call.fn === 'init') inInit.add(th.tid);
      else if (op.k === 'ret' && op.ret.fn === 'init') inInit.delete(th.tid);
    },
    onOp(_rt, th, op) {
      if (op.k === 'free' && inInit.has(th.tid) && !world.ledger.reclaims) {
        keptByRollback[op.dev] = (keptByRollback[op.dev] ?? 0) + world.deviceBytes(op.tensor);
      }
    },
    guardedDigest() {
      // scalars, per-device budgets, and every slot's flags and heat: what a thread may
      // only change holding mx (32-bit mixing: this runs twice for every step taken
      // without mx)
      let h = mix(
        mix(mix(mix(st.inflight, st.qn), mix(st.qh, st.qt)), mix(st.tick, st.pending.length)),
        mix(mix(st.evicted.length, st.evictedDropped), mix(st.mark.hits, st.mark.misses)),
      );
      const flags = (st.stop ? 1 : 0) | (st.issueOpen ? 2 : 0) | (st.active ? 16 : 0);
      h = mix(h, flags);
      for (let d = 0; d < devices; d++) h = mix(mix(h, st.used[d] ?? 0), st.budget[d] ?? 0);
      if (slotsGuarded) return h;
      for (const row of st.slots) {
        for (const slot of row) {
          const bits =
            (slot.resident ? 1 : 0) |
            (slot.queued ? 2 : 0) |
            (slot.planned ? 4 : 0) |
            (slot.ram !== null ? 8 : 0) |
            (slot.tensors !== null ? 16 : 0);
          h = mix(h, slot.heat * 32 + bits);
        }
      }
      return h;
    },
    onQuiescent() {
      const queued = slotTotals.update();
      const charged = slotTotals.charged;
      if (st.inflight !== queued) {
        throw new Violation('ACC-INFLIGHT', `inflight=${st.inflight} but ${queued} experts are queued`);
      }
      let entries = 0;
      for (const e of st.ring) if (e !== null) entries++;
      if (st.qn !== entries || st.qn < 0 || st.qn > st.cfg.ringCapacity || st.qn > st.inflight) {
        throw new Violation(
          'ACC-INFLIGHT',
          `qn=${st.qn} with ${entries} ring entries, capacity ${st.cfg.ringCapacity}, inflight ${st.inflight}`,
        );
      }
      // one array for every release (a release makes nothing here)
      trunk.fill(0);
      for (let i = 0; i < st.dense.length; i++) {
        const r = st.dense[i];
        if (r !== null && r !== undefined) trunk[r.dev] = (trunk[r.dev] ?? 0) + (denseCharge[i] ?? 0);
      }
      for (let d = 0; d < devices; d++) {
        const used = st.used[d] ?? 0;
        const budget = st.budget[d] ?? 0;
        const want = (charged[d] ?? 0) * st.expBytes + (trunk[d] ?? 0);
        if (used !== want) {
          throw new Violation(
            'ACC-BUDGET',
            `device ${d}: used=${used} but ${charged[d]} experts resident, queued or planned and the trunk on it need ${want}`,
          );
        }
        if (used < 0 || used > budget)
          throw new Violation('ACC-BUDGET', `device ${d}: used=${used} outside 0..budget ${budget}`);
        granted[d] = Math.max(granted[d] ?? 0, budget);
        const consumed = (world.ledger.consumed[d] ?? 0) - (keptByRollback[d] ?? 0);
        if (consumed > (granted[d] ?? 0) && !world.ledger.backendShutdown) {
          throw new Violation(
            'DEV-BUDGET',
            `device ${d}: ${consumed} bytes consumed, budget ${granted[d]}${world.ledger.reclaims ? '' : ' (fill-once arena)'}`,
          );
        }
        // a native engine's own count catches what the shadow cannot see: a backend that
        // says it reclaims freed memory and does not
        const held = world.deviceHeldBytes(d);
        if (held !== null && held - (keptByRollback[d] ?? 0) > (granted[d] ?? 0) && !world.ledger.backendShutdown) {
          throw new Violation(
            'DEV-BUDGET',
            `device ${d}: the backend holds ${held} bytes of tensors, budget ${granted[d]}`,
          );
        }
      }
    },
  };
}

/**
 * The slots' part of the accounting, kept up to date from the slots written since the
 * last release (table_watch.ts): experts queued, experts charged per home device, and
 * each resident slot's tensors against the tier's expert size, checked when the slot or
 * that size changes (a slot that passed and did not change passes still).
 */
class SlotTotals {
  /** experts resident, queued or planned, per home device */
  readonly charged: number[] = [];
  private queued = 0;
  private home: number[] = [];
  private isQueued: boolean[] = [];
  private expBytes = -1;
  private readonly watch: TableWatch;
  private readonly reader: TableReader;

  constructor(
    private readonly ctx: CheckContext,
    watchSlots: boolean,
  ) {
    this.watch = watchOf(ctx.st, TIER_SLOT_FIELDS, watchSlots);
    this.reader = this.watch.reader();
  }

  /** Brings the totals up to the table; returns the experts queued. */
  update(): number {
    const st = this.ctx.st;
    this.watch.look(st.slots);
    let changed = this.reader.take();
    if (st.expBytes !== this.expBytes) changed = 'all';
    this.expBytes = st.expBytes;
    if (changed === 'all') {
      this.charged.length = 0;
      for (let d = 0; d < st.cfg.devices; d++) this.charged.push(0);
      this.queued = 0;
      if (this.watch.scansWhole) {
        // nothing to remember per slot: the next look scans the whole table again
        for (const row of st.slots) for (const slot of row) this.countOnce(slot);
        return this.queued;
      }
      this.home = [];
      this.isQueued = [];
      let i = 0;
      for (const row of st.slots) for (const slot of row) this.count(i++, slot);
    } else {
      const experts = st.slots[0]?.length ?? 0;
      for (const i of changed) {
        const slot = st.slots[Math.floor(i / experts)]?.[i % experts];
        if (slot !== undefined) this.count(i, slot);
      }
    }
    return this.queued;
  }

  private count(i: number, slot: Slot): void {
    const was = this.home[i];
    if (was !== undefined && was >= 0) this.charged[was] = (this.charged[was] ?? 0) - 1;
    if (this.isQueued[i] === true) this.queued--;
    const charges = slot.resident || slot.queued || slot.planned;
    this.home[i] = charges ? slot.home : -1;
    if (charges) this.charged[slot.home] = (this.charged[slot.home] ?? 0) + 1;
    this.isQueued[i] = slot.queued;
    if (slot.queued) this.queued++;
    if (slot.resident) this.checkResident(slot);
  }

  private countOnce(slot: Slot): void {
    if (slot.queued) this.queued++;
    if (slot.resident || slot.queued || slot.planned) this.charged[slot.home] = (this.charged[slot.home] ?? 0) + 1;
    if (slot.resident) this.checkResident(slot);
  }

  private checkResident(slot: Slot): void {
    const tensors = slot.tensors;
    if (tensors === null) throw new Violation('ACC-INFLIGHT', `L${slot.layer}E${slot.eid} is resident without tensors`);
    let bytes = 0;
    for (const t of tensors) bytes += this.ctx.world.deviceBytes(t);
    if (bytes !== this.ctx.st.expBytes) {
      throw new Violation(
        'ACC-FOOTPRINT',
        `L${slot.layer}E${slot.eid} takes ${bytes} device bytes but the tier charges ${this.ctx.st.expBytes}`,
      );
    }
  }
}

/** One step of a 32-bit multiplicative hash (values beyond 32 bits fold their high part in). */
function mix(h: number, x: number): number {
  const lo = x | 0;
  const hi = (x / 4294967296) | 0;
  return (Math.imul(h ^ lo, 0x9e3779b1) + hi) | 0;
}
