/**
 * Names for the world's records in a state digest: a tensor, staging copy or host array
 * is hashed by what it is (device, expert, part, bytes, alive, refs) and by which other
 * references in the state name the same record, never by the id the ledger gave it; a
 * RAM reference by its expert and whether it is still valid, never by its slot and
 * generation. Two states whose records were allocated in another order (the loaders
 * raced, the uploader took the ring in another order) then share a digest, as they share
 * every future: ids only appear in messages and trace text, and a RAM reference's slot
 * and generation only decide whether it is still valid (model/ram/ram.ts).
 *
 * How: the digest walks the state in a canonical order (the tier's slots by expert, the
 * ring by index, maps of numbers and strings by key, threads by tid, frames outermost
 * first); the first time it meets a world-owned object it gives it the next number and
 * folds (NEW, number, content); every later meeting folds (REF, number). The numbers are
 * in the fold, so any fold order encodes the state up to a renaming of records, aliasing
 * included (two slots holding one tensor are not two slots holding equal tensors); a
 * canonical order makes isomorphic states fold alike.
 *
 * What is world-owned: every object an op's result handed out (and objects inside it, a
 * few levels down), marked when the world answers (subject.ts), and the RAM pool's
 * current references (world_digest.ts).
 *
 * Invariant: folding never changes the state; names live for one digest (`reset`).
 */
import { fieldCode, type Hasher } from './digest_hash.js';

/** a world-owned object's kind: how its identity is left out */
export const Owned = {
  /** a result of no identity of its own (an output, a route): content and aliasing */
  Value: 1,
  /** a ledger record (tensor, staging copy, host array): content less its `id` */
  Record: 2,
  /** a RAM reference: expert and validity, less its slot and generation */
  Ram: 3,
} as const;
export type Owned = (typeof Owned)[keyof typeof Owned];

const NEW = 0x4e455721;
const REF = 0x52454621;
const MAX_MARK_DEPTH = 3;

/** Which objects the world handed out, and as what. */
export class WorldOwned {
  private readonly kinds = new WeakMap<object, Owned>();

  /** the world answered an op of kind `op` with `result` */
  markResult(op: string, result: unknown): void {
    if (result === null || typeof result !== 'object') return;
    const kind =
      op === 'loadRam' || op === 'ramOf'
        ? Owned.Ram
        : op === 'upload' || op === 'uploadDense' || op === 'stage' || op === 'hostAlloc'
          ? Owned.Record
          : Owned.Value;
    this.mark(result, kind, 0);
  }

  markRam(ref: object): void {
    this.kinds.set(ref, Owned.Ram);
  }

  kind(o: object): Owned | undefined {
    return this.kinds.get(o);
  }

  private mark(v: object, kind: Owned, depth: number): void {
    if (this.kinds.has(v) || depth > MAX_MARK_DEPTH) return;
    this.kinds.set(v, kind);
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === 'object') this.mark(x as object, Owned.Value, depth + 1);
  }
}

/** folds one value (the walker the caller uses for everything else) */
export type Fold = (h: Hasher, v: unknown, depth: number) => void;

/** The numbering of world-owned objects within one digest. */
export class RecordNames {
  private readonly names = new Map<object, number>();
  /** the walker that folds a record's fields (set once: no closure per object folded) */
  walk: Fold = () => {
    throw new Error('internal error: record names without a walker');
  };

  constructor(
    readonly owned: WorldOwned,
    /** whether a RAM reference may still be read (its slot alive at its generation) */
    private readonly ramValid: (ref: object) => boolean,
  ) {}

  reset(): void {
    this.names.clear();
  }

  /** the name given to `o` in this digest, if it was met */
  nameOf(o: object): number | undefined {
    return this.names.get(o);
  }

  /**
   * Folds `v` if it is world-owned (true), else leaves it to the caller (false), its
   * fields by `walk`, nested world-owned objects included.
   */
  fold(h: Hasher, v: object, depth: number): boolean {
    const kind = this.owned.kind(v);
    if (kind === undefined) return false;
    const known = this.names.get(v);
    if (known !== undefined) {
      h.add(REF).add(known);
      return true;
    }
    const name = this.names.size;
    this.names.set(v, name);
    h.add(NEW).add(name);
    foldContent(h, v, kind, depth, this.walk, this.ramValid);
    return true;
  }

  /** a record's content alone (a live ledger record nobody else holds: no name needed) */
  foldUnnamed(h: Hasher, v: object, depth: number): void {
    foldContent(h, v, this.owned.kind(v) ?? Owned.Value, depth, this.walk, this.ramValid);
  }
}

function foldContent(
  h: Hasher,
  v: object,
  kind: Owned,
  depth: number,
  fold: Fold,
  ramValid: (ref: object) => boolean,
): void {
  h.add(kind);
  if (Array.isArray(v)) {
    h.add(v.length);
    for (const x of v) fold(h, x, depth + 1);
    return;
  }
  const o = v as Record<string, unknown>;
  if (kind === Owned.Ram) {
    h.bool(ramValid(v));
    fold(h, o.layer, depth + 1);
    fold(h, o.eid, depth + 1);
    return;
  }
  for (const k in o) {
    if (kind === Owned.Record && k === 'id') continue;
    const x = o[k];
    if (typeof x === 'function') continue;
    h.add(fieldCode(k));
    fold(h, x, depth + 1);
  }
}
