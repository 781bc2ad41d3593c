/**
 * The accessors a watched slot's fields become (table_watch.ts): each reads and writes the
 * slot's hidden record, and a write marks the slot for the readers of its table.
 *
 * Why a file of its own: the slot tables' own fields each get a getter and a setter
 * written out, so that each is a load or a store of one fixed property that V8 caches
 * (a getter shared by every field looks its field up by name at every read of a slot).
 * Invariant: a read gives the value last written through the setter (or the value the
 * field had when the slot was watched); a slot with no record reads undefined and a write
 * to it marks nothing.
 */
/** What a write reports to: the slot's table watch. */
export interface WriteSink {
  wrote(index: number, generation: number): void;
}

export const RECORD: unique symbol = Symbol('watched slot');

export interface SlotRecord {
  readonly values: SlotValues;
  readonly index: number;
  readonly watch: WriteSink;
  /** the table it was instrumented for: a slot of a table left behind marks nothing */
  readonly generation: number;
}

export type Watched = { [RECORD]?: SlotRecord };

/** A watched slot's values: the known fields by name (typed loose: either table's slots). */
type SlotValues = Record<string, unknown> & {
  home?: unknown;
  heat?: unknown;
  resident?: unknown;
  queued?: unknown;
  planned?: unknown;
  tensors?: unknown;
  ram?: unknown;
};

/** One accessor pair per field name, shared by every watched slot. */
const accessors = new Map<string, PropertyDescriptor>();

/**
 * The slot tables' own fields, each with a getter and a setter of its own that name it:
 * a load of a fixed property V8 caches, where a getter shared by every field would look
 * its field up by name at every read of a slot (any other field gets such a pair).
 */
const KNOWN: Readonly<Record<string, PropertyDescriptor>> = {
  home: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.home;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.home = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  heat: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.heat;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.heat = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  resident: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.resident;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.resident = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  queued: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.queued;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.queued = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  planned: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.planned;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.planned = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  tensors: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.tensors;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.tensors = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
  ram: {
    get(this: Watched): unknown {
      return this[RECORD]?.values.ram;
    },
    set(this: Watched, v: unknown): void {
      const r = this[RECORD];
      if (r !== undefined) {
        r.values.ram = v;
        r.watch.wrote(r.index, r.generation);
      }
    },
    enumerable: true,
    configurable: false,
  },
};

export function accessorFor(field: string): PropertyDescriptor {
  let d = accessors.get(field);
  if (d === undefined) {
    d = Object.hasOwn(KNOWN, field)
      ? KNOWN[field]
      : {
          get(this: Watched): unknown {
            return this[RECORD]?.values[field];
          },
          set(this: Watched, v: unknown): void {
            const r = this[RECORD];
            if (r === undefined) return;
            r.values[field] = v;
            r.watch.wrote(r.index, r.generation);
          },
          enumerable: true,
          configurable: false,
        };
    if (d === undefined) throw new Error(`internal error: no accessor for ${field}`);
    accessors.set(field, d);
  }
  return d;
}
