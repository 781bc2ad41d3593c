/**
 * The abstraction from the tier's state to the reference's: field by field, the first
 * fact on which the two disagree (null: they agree). Device handles, staging copies and
 * RAM pointers are compared by presence, the ring by its entries oldest first, the
 * groups by their experts. Two halves, one per mutex: the tables (mx-guarded, compared
 * when mx is released) and the lifecycle gate (gmx-guarded, compared when gmx is): at a
 * release of one, another thread may be inside a section of the other.
 */
import type { TierState } from '../../tier/state.js';
import type { SpecState } from '../../protocol_ref/state.js';

export interface Difference {
  readonly field: string;
  readonly spec: string;
  readonly tier: string;
}

const diff = (field: string, spec: unknown, tier: unknown): Difference => ({
  field,
  spec: String(spec),
  tier: String(tier),
});

/**
 * `changed`: the row-major indices of the slots either side wrote since the last
 * comparison found no difference (table_watch.ts), or 'all'; the others still agree.
 */
export function firstDifference(s: SpecState, t: TierState, changed: readonly number[] | 'all'): Difference | null {
  const c = s.counters;
  const k = t.counters;
  if (c.uploads !== k.uploads) return diff('counters.uploads', c.uploads, k.uploads);
  if (c.uploadFailures !== k.uploadFailures) return diff('counters.uploadFailures', c.uploadFailures, k.uploadFailures);
  if (c.hits !== k.hits) return diff('counters.hits', c.hits, k.hits);
  if (c.misses !== k.misses) return diff('counters.misses', c.misses, k.misses);
  if (c.swaps !== k.swaps) return diff('counters.swaps', c.swaps, k.swaps);
  if (c.swapsAbandoned !== k.swapsAbandoned) return diff('counters.swapsAbandoned', c.swapsAbandoned, k.swapsAbandoned);
  if (c.queueFullSkips !== k.queueFullSkips) return diff('counters.queueFullSkips', c.queueFullSkips, k.queueFullSkips);
  if (s.exp !== t.expBytes) return diff('exp_bytes', s.exp, t.expBytes);
  if (s.active !== t.active) return diff('active', s.active, t.active);
  if (s.stop !== t.stop) return diff('stop', s.stop, t.stop);
  if (!s.active) return released(s, t);
  return scalars(s, t) ?? devices(s, t) ?? ring(s, t) ?? groups(s, t) ?? slots(s, t, changed);
}

/**
 * Off (before the first init, after a failed one, after a teardown): no slot table, and
 * what a teardown or a rollback gives back is given back on both sides: every device's
 * charge, the ring, the groups, the group window. The budgets are the last session's
 * figures and nobody reads them before the next init sets them.
 */
function released(s: SpecState, t: TierState): Difference | null {
  if (s.slots.length !== t.slots.length) return diff('slots', s.slots.length, t.slots.length);
  if (s.issueOpen !== t.issueOpen) return diff('issueOpen', s.issueOpen, t.issueOpen);
  for (let d = 0; d < s.cfg.devices; d++) {
    if ((s.used[d] ?? 0) !== (t.used[d] ?? 0)) return diff(`used[${d}]`, s.used[d], t.used[d]);
  }
  return ring(s, t) ?? groups(s, t);
}

function scalars(s: SpecState, t: TierState): Difference | null {
  if (s.inflight !== t.inflight) return diff('inflight', s.inflight, t.inflight);
  if (s.issueOpen !== t.issueOpen) return diff('issueOpen', s.issueOpen, t.issueOpen);
  if (s.tick !== t.tick) return diff('tick', s.tick, t.tick);
  if (s.evictedDropped !== t.evictedDropped) return diff('evictedDropped', s.evictedDropped, t.evictedDropped);
  if (s.mark.hits !== t.mark.hits || s.mark.misses !== t.mark.misses)
    return diff('mark', `${s.mark.hits}/${s.mark.misses}`, `${t.mark.hits}/${t.mark.misses}`);
  // compared field by field; the texts are built only for a difference's report
  if (!sameLists(s.pending, t.pending, samePair))
    return diff('pending', `[${s.pending.map(pairText).join(' ')}]`, `[${t.pending.map(pairText).join(' ')}]`);
  if (!sameLists(s.evicted, t.evicted, sameKey))
    return diff('evicted', `[${s.evicted.map(keyText).join(' ')}]`, `[${t.evicted.map(keyText).join(' ')}]`);
  return null;
}

type Pair = { layer: number; victim: number; newcomerLayer: number; newcomer: number };
type Key = { layer: number; eid: number };

function sameLists<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !same(x, y)) return false;
  }
  return true;
}

function samePair(x: Pair, y: Pair): boolean {
  return (
    x.layer === y.layer && x.victim === y.victim && x.newcomerLayer === y.newcomerLayer && x.newcomer === y.newcomer
  );
}

function sameKey(x: Key, y: Key): boolean {
  return x.layer === y.layer && x.eid === y.eid;
}

function keyText(k: Key): string {
  return `L${k.layer}E${k.eid}`;
}

function pairText(p: Pair): string {
  return `L${p.newcomerLayer}E${p.newcomer}<-L${p.layer}E${p.victim}`;
}

/** The gate's half: its state, counters and the trunk placed while DEAD. */
export function gateDifference(s: SpecState, t: TierState): Difference | null {
  const a = s.gate;
  const b = t.gate;
  if (a.state !== b.state) return diff('gate.state', a.state, b.state);
  if (a.live !== b.live) return diff('gate.live', a.live, b.live);
  if (a.wantX !== b.wantX) return diff('gate.wantX', a.wantX, b.wantX);
  if (a.x !== b.x) return diff('gate.x', a.x, b.x);
  if (a.trunkBusy !== b.trunkBusy) return diff('gate.trunkBusy', a.trunkBusy, b.trunkBusy);
  for (let i = 0; i < a.deadTrunk.length; i++) {
    const tier = b.deadTrunk[i]?.dev ?? null;
    if ((a.deadTrunk[i] ?? null) !== tier)
      return diff(`gate.deadTrunk[${i}]`, a.deadTrunk[i] ?? 'none', tier ?? 'none');
  }
  return null;
}

function devices(s: SpecState, t: TierState): Difference | null {
  for (let d = 0; d < s.cfg.devices; d++) {
    if ((s.budget[d] ?? 0) !== (t.budget[d] ?? 0)) return diff(`budget[${d}]`, s.budget[d], t.budget[d]);
    if ((s.used[d] ?? 0) !== (t.used[d] ?? 0)) return diff(`used[${d}]`, s.used[d], t.used[d]);
  }
  for (let i = 0; i < s.dense.length; i++) {
    const tier = t.dense[i]?.dev ?? null;
    if ((s.dense[i] ?? null) !== tier) return diff(`dense[${i}]`, s.dense[i] ?? 'cpu', tier ?? 'cpu');
  }
  return null;
}

function ring(s: SpecState, t: TierState): Difference | null {
  if (s.ring.length !== t.qn) return diff('qn', s.ring.length, t.qn);
  const cap = t.ring.length;
  // the tier's index of entry i is (qh + i) % cap, stepped rather than divided at every
  // entry (this runs at every release of mx); a negative or fractional qh finds no entry
  // at i = 0, as the division's index does
  let j = t.qh % cap;
  for (let i = 0; i < s.ring.length; i++, j = j + 1 === cap ? 0 : j + 1) {
    const a = s.ring[i];
    const b = t.ring[j];
    if (a === undefined || b === null || b === undefined || !sameEntry(a, b)) {
      const as = a === undefined ? '-' : entry(a.layer, a.eid, a.victim);
      const bs = b === null || b === undefined ? '-' : entry(b.layer, b.eid, b.victim);
      return diff(`ring[${i}]`, as, bs);
    }
  }
  return null;
}

type Entry = { layer: number; eid: number; victim: { layer: number; eid: number } | null };

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.layer !== b.layer || a.eid !== b.eid) return false;
  if (a.victim === null || b.victim === null) return a.victim === b.victim;
  return a.victim.layer === b.victim.layer && a.victim.eid === b.victim.eid;
}

function entry(layer: number, eid: number, victim: { layer: number; eid: number } | null): string {
  return `L${layer}E${eid}${victim === null ? '' : `<-L${victim.layer}E${victim.eid}`}`;
}

function groups(s: SpecState, t: TierState): Difference | null {
  for (let d = 0; d < s.cfg.devices; d++) {
    const a = s.groups[d] ?? [];
    const b = t.groups[d] ?? [];
    let same = a.length === b.length;
    for (let i = 0; same && i < a.length; i++) same = a[i] === b[i]?.eid;
    if (!same) return diff(`groups[${d}]`, `[${a.join(',')}]`, `[${b.map((r) => r.eid).join(',')}]`);
  }
  return null;
}

function slots(s: SpecState, t: TierState, changed: readonly number[] | 'all'): Difference | null {
  if (s.slots.length !== t.slots.length) return diff('slots', s.slots.length, t.slots.length);
  for (let l = 0; l < s.slots.length; l++) {
    const n = s.slots[l]?.length ?? 0;
    const trow = t.slots[l];
    if (trow === undefined || trow.length !== n) return diff(`slots[${l}]`, n, trow?.length ?? 0);
  }
  const experts = s.slots[0]?.length ?? 0;
  if (changed === 'all') {
    for (let i = 0; i < s.slots.length * experts; i++) {
      const d = slotDifference(s, t, i, experts);
      if (d !== null) return d;
    }
    return null;
  }
  for (const i of changed) {
    const d = slotDifference(s, t, i, experts);
    if (d !== null) return d;
  }
  return null;
}

/** Slot i (row-major) of both sides: the first field on which they disagree. */
function slotDifference(s: SpecState, t: TierState, i: number, experts: number): Difference | null {
  const l = Math.floor(i / experts);
  const e = i % experts;
  const a = s.slots[l]?.[e];
  const b = t.slots[l]?.[e];
  if (a === undefined || b === undefined) return null;
  const devices = s.cfg.devices;
  if (
    b.home === e % devices &&
    a.heat === b.heat &&
    a.resident === b.resident &&
    a.queued === b.queued &&
    a.planned === b.planned &&
    a.tensors === (b.tensors !== null) &&
    a.ram === (b.ram !== null)
  ) {
    return null;
  }
  const at = `L${l}E${e}`;
  if (b.home !== e % devices) return diff(`${at}.home`, `device ${e % devices}`, `device ${b.home}`);
  if (a.heat !== b.heat) return diff(`${at}.heat`, a.heat, b.heat);
  if (a.resident !== b.resident) return diff(`${at}.resident`, a.resident, b.resident);
  if (a.queued !== b.queued) return diff(`${at}.queued`, a.queued, b.queued);
  if (a.planned !== b.planned) return diff(`${at}.planned`, a.planned, b.planned);
  if (a.tensors !== (b.tensors !== null)) return diff(`${at}.tensors`, a.tensors, b.tensors !== null);
  return diff(`${at}.ram`, a.ram, b.ram !== null);
}
