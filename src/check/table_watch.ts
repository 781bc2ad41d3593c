/**
 * Which slots of a slot table (the tier's, or the reference's) were written since a
 * checker last looked, so that a check at every release of mx costs what changed and
 * not the size of the table.
 *
 * Why: the refinement and accounting checks compare or sum every slot at every release;
 * on a real model (thousands of experts) those scans, not the tier, bounded the
 * warmstart, and they grew with the table (a 16 GiB fill ran at 7 % of the copy rate).
 * How: when a table is first seen, each slot's watched fields become accessors over a
 * hidden record (one shared getter and setter per field), and a write marks the slot for
 * every reader. The fields are deleted (last first) and defined again as accessors, in
 * their order: V8 then rolls each slot back to its creation's shape and every slot of a
 * table shares one fast shape with the same accessor pairs (a data field turned into an
 * accessor in place would put each slot in dictionary mode: three times the cost to
 * install, tens of times the cost of each read). Still, a watched slot's read is a call;
 * real runs pay it gladly (their tier reads slots rarely, their checkers at every
 * release); the simulator watches in its sampled runs, where a scan at every release
 * would grow with the table, and not in its searches, which save and restore plain slots
 * (model/run.ts, assemble.ts `watchSlots`). Where the read guard is on, it reports the
 * tier's writes (feedByWrites) and the tier's slots stay plain. The rows are frozen: a
 * slot is never replaced in its row (a write that tried would throw, not go unseen). A
 * new table, a new row or a row of another length is seen at the next look, and then
 * every slot counts as written. Tables under
 * WATCH_MIN_SLOTS are not watched at all: every look reports all of them.
 * Invariant: a slot not reported since a reader's last look has the watched values it
 * had then; reads and writes through the accessors see exactly the values written.
 */

import type { Slot } from '../tier/state.js';
import type { SpecSlot } from '../protocol_ref/state.js';

/** What the checkers read of a tier slot (everything but its constant layer and eid). */
export const TIER_SLOT_FIELDS: readonly (keyof Slot)[] = [
  'home',
  'heat',
  'resident',
  'queued',
  'planned',
  'tensors',
  'ram',
];
export const SPEC_SLOT_FIELDS: readonly (keyof SpecSlot)[] = [
  'heat',
  'resident',
  'queued',
  'planned',
  'tensors',
  'ram',
];

import { accessorFor, RECORD, type SlotRecord, type Watched } from './table_watch_accessors.js';

const ascending = (a: number, b: number): number => a - b;

/** A reader's view: the slots written since it last took them. */
export class TableReader {
  private flags = new Uint8Array(0);
  private list: number[] = [];
  private all = true;

  /** every take reports the whole table and nothing else is kept (a table scanned whole) */
  get reportsAll(): boolean {
    return this.all && this.flags.length === 0;
  }

  /** @internal the watch's record of a write */
  add(i: number): void {
    if (this.all || i >= this.flags.length || this.flags[i] === 1) return;
    this.flags[i] = 1;
    this.list.push(i);
  }

  /** @internal a new table: everything counts as written */
  reset(size: number): void {
    this.flags = new Uint8Array(size);
    this.list = [];
    this.all = true;
  }

  /** Row-major indices written since the last take, in order, or 'all'. */
  take(): number[] | 'all' {
    if (this.all) {
      this.all = this.flags.length === 0;
      this.list = [];
      return 'all';
    }
    const out = this.list.length > 1 ? this.list.sort(ascending) : this.list;
    for (const i of out) this.flags[i] = 0;
    this.list = [];
    return out;
  }
}

/**
 * Watched tables of fewer slots are scanned whole (a scan of a few dozen slots is cheap).
 * 64 is the committed fixtures' 8 x 8: every oracle run in `npm test` goes by the watch.
 */
export const WATCH_MIN_SLOTS = 64;

/** The one watch of each slot table's owner (a tier's state, a reference's state). */
const watches = new WeakMap<object, TableWatch>();

/** `watched` false: a watch that never instruments (every look reports all of the table). */
export function watchOf(owner: object, fields: readonly string[], watched: boolean): TableWatch {
  const minSlots = watched ? WATCH_MIN_SLOTS : Number.POSITIVE_INFINITY;
  let w = watches.get(owner);
  if (w === undefined) {
    w = new TableWatch(fields, minSlots);
    watches.set(owner, w);
  } else if (fields.some((f) => !w?.fields.includes(f)) || w.minSlots !== minSlots) {
    throw new Error(`internal error: one table watched two ways (${fields.join(', ')})`);
  }
  return w;
}

export class TableWatch {
  private table: readonly object[][] | null = null;
  private rows: readonly object[][] = [];
  private readonly readers: TableReader[] = [];

  private small = true;
  private generation = 0;
  /** writes are reported by wroteSlot (the read guard sees every one), not by accessors */
  private fed = false;
  /** fed watches: each slot of the table looked at, to its row-major index */
  private indexOf = new Map<object, number>();
  /** the watched fields' shared accessors, by field */
  private readonly accessors: PropertyDescriptorMap;

  /** minSlots: tables smaller than this are not watched (scanned whole at every look) */
  constructor(
    readonly fields: readonly string[],
    readonly minSlots = WATCH_MIN_SLOTS,
  ) {
    this.accessors = {};
    for (const f of fields) this.accessors[f] = accessorFor(f);
  }

  /** Whether readers of this table get 'all' at every take (it is small). */
  get scansWhole(): boolean {
    return this.small;
  }

  reader(): TableReader {
    const r = new TableReader();
    this.readers.push(r);
    return r;
  }

  /**
   * Writes to the table are reported by wroteSlot instead of accessors: where the tier's
   * threads see the state through the read guard (guarded_reads.ts), every write to a slot
   * goes through it, and the slots keep plain fields (no accessors to install at each new
   * table, no slower read of a slot). Set before the first look.
   */
  feedByWrites(): void {
    if (this.table !== null) throw new Error('internal error: a watch fed by writes after its first look');
    this.fed = true;
  }

  /**
   * A write to `slot` (fed watches): marked for every reader if it is a slot of the table
   * last looked at, found by the object itself (as an accessor would be), not by its fields.
   */
  wroteSlot(slot: object): void {
    const i = this.indexOf.get(slot);
    if (i !== undefined) for (const r of this.readers) r.add(i);
  }

  /** @internal */
  wrote(i: number, generation: number): void {
    if (generation !== this.generation) return;
    for (const r of this.readers) r.add(i);
  }

  /**
   * Brings the watch up to `table` (call before taking): a table, row or row length not
   * seen before is instrumented, and every reader gets 'all' on its next take.
   */
  look(table: readonly object[][]): void {
    if (table === this.table && this.sameRows(table)) return;
    this.table = table;
    this.rows = table.slice();
    let size = 0;
    for (const row of table) size += row.length;
    if (size < this.minSlots) {
      // a small table: scanning it costs less than watching it (accessors slow every
      // read of a slot), so every look reports all of it
      this.small = true;
      this.indexOf = new Map();
      for (const r of this.readers) r.reset(0);
      return;
    }
    this.small = false;
    this.generation++;
    let index = 0;
    this.indexOf = new Map();
    for (const row of table) {
      if (this.fed) for (const slot of row) this.indexOf.set(slot, index++);
      else for (const slot of row) this.instrument(slot, index++);
      if (!Object.isFrozen(row)) Object.freeze(row);
    }
    for (const r of this.readers) r.reset(index);
  }

  private sameRows(table: readonly object[][]): boolean {
    if (table.length !== this.rows.length) return false;
    for (let l = 0; l < table.length; l++) if (table[l] !== this.rows[l]) return false;
    return true;
  }

  private instrument(slot: object, index: number): void {
    const w = slot as Watched & Record<string, unknown>;
    const values: Record<string, unknown> = {};
    for (const f of this.fields) values[f] = w[f];
    const record: SlotRecord = { values, index, watch: this, generation: this.generation };
    if (w[RECORD] === undefined) this.redefine(w);
    else {
      // a slot watched before (a row replaced, looked at again; or another watch's): its
      // accessors stay, a field it did not watch becomes one in place
      for (const f of this.fields) {
        const d = accessorFor(f);
        if (Object.getOwnPropertyDescriptor(w, f)?.get !== d.get) Object.defineProperty(w, f, d);
      }
    }
    Object.defineProperty(w, RECORD, { value: record, writable: true, enumerable: false });
  }

  /**
   * The watched fields become the shared accessors: every own field from the first watched
   * one on is deleted, last first, and defined again in its order (the watched as accessors,
   * the others with the descriptors they had); a watched field the slot lacks comes last.
   */
  private redefine(w: Record<string, unknown>): void {
    const keys = Object.keys(w);
    let first = keys.length;
    for (let i = 0; i < keys.length; i++) {
      if (this.fields.includes(keys[i] ?? '')) {
        first = i;
        break;
      }
    }
    const kept: (PropertyDescriptor | undefined)[] = [];
    for (let i = keys.length - 1; i >= first; i--) {
      const k = keys[i] ?? '';
      kept.push(Object.hasOwn(this.accessors, k) ? undefined : Object.getOwnPropertyDescriptor(w, k));
      delete w[k];
    }
    kept.reverse();
    for (let i = first; i < keys.length; i++) {
      const k = keys[i] ?? '';
      const d = Object.hasOwn(this.accessors, k) ? this.accessors[k] : kept[i - first];
      if (d !== undefined) Object.defineProperty(w, k, d);
    }
    for (const f of this.fields) if (!Object.hasOwn(w, f)) Object.defineProperty(w, f, accessorFor(f));
  }
}
