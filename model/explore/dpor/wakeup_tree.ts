/**
 * Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order
 * reduction", POPL 2014): at a node of the search, the sequences of events still to be
 * explored from there, as an ordered tree whose leftmost path goes first.
 *
 * A race reversal produces a wakeup sequence v (the events after the first racing event
 * that do not depend on it, then the second racing event). Inserting v at a node:
 *  - is skipped when an event of the node's sleep set (explored siblings and what was
 *    asleep on arrival) is a weak initial of v: every execution v stands for was
 *    covered there;
 *  - otherwise walks down the tree: a child whose event is a weak initial of what is left
 *    of v is followed (its event taken out of v); reaching a leaf, or using v up, means an
 *    execution v stands for will be explored already; where no child fits, the rest of v
 *    is added as a new rightmost branch.
 * A thread p is a weak initial of w when p's first event in w depends on no earlier event
 * of w, or when p has no event in w and p's next event is independent of all of w: then
 * some extension of w is equivalent to one that starts with p.
 *
 * Invariant: branches are added only by insertion and removed only by the node that
 * explores them, so no sequence is explored twice from one node.
 */
import { dependent, type EventFp } from './dependence.js';
import type { EventOrder } from './happens_before.js';

/** An event as a branch label: whose it is, which wakeup a signal in it chose, what it touches. */
export interface Branch {
  readonly key: number;
  /** waiter option of a signal in this step (-1: none, or not known yet) */
  readonly choice: number;
  readonly fp: EventFp;
}

export interface WakeupNode extends Branch {
  readonly children: WakeupNode[];
}

/**
 * A wakeup sequence under construction: the indices (into the run's events) of
 * notdep(e) followed by the reversed event, with what is needed to test weak initials
 * as events are taken off the front.
 */
export class WakeupSequence {
  /** event indices in execution order; the last one is the reversed event */
  readonly items: number[];
  private readonly removed: boolean[];
  /** for each item but the last: the last item depends on it within the sequence */
  private readonly beforeLast: boolean[];

  constructor(
    private readonly hb: EventOrder,
    items: number[],
  ) {
    this.items = items;
    this.removed = items.map(() => false);
    const n = items.length;
    const lastIdx = items[n - 1] ?? -1;
    const last = hb.events[lastIdx];
    this.beforeLast = new Array<boolean>(n).fill(false);
    if (last === undefined) return;
    // backwards: item b precedes the last if it conflicts with it (or is its thread's),
    // or if it happens before an item that does; per thread only the latest such item
    // matters (later items of a thread are ordered after earlier ones)
    const latestOf = new Map<number, number>();
    for (let b = n - 2; b >= 0; b--) {
      const ev = hb.events[items[b] ?? -1];
      if (ev === undefined) continue;
      let pre = ev.tid === last.tid || dependent(ev.fp, last.fp);
      if (!pre) {
        for (const c of latestOf.values()) {
          if (hb.ordered(items[b] ?? -1, items[c] ?? -1)) {
            pre = true;
            break;
          }
        }
      }
      if (pre) {
        this.beforeLast[b] = true;
        if (!latestOf.has(ev.tid)) latestOf.set(ev.tid, b);
      }
    }
  }

  get empty(): boolean {
    return this.removed.every((r) => r);
  }

  private eventAt(i: number): Branch {
    const ev = this.hb.events[this.items[i] ?? -1];
    if (ev === undefined) throw new Error('internal error: wakeup sequence names a missing event');
    return ev;
  }

  /** item j depends on item i (i before j) within the sequence */
  private precedes(i: number, j: number): boolean {
    if (j === this.items.length - 1) return this.beforeLast[i] === true;
    return this.hb.ordered(this.items[i] ?? -1, this.items[j] ?? -1);
  }

  /** index of the first remaining item of `tid`, or -1 */
  private firstOf(tid: number): number {
    for (let i = 0; i < this.items.length; i++) {
      if (this.removed[i] !== true && (this.hb.events[this.items[i] ?? -1]?.tid ?? -1) === tid) return i;
    }
    return -1;
  }

  /** the remaining item index that is `b` as a weak initial, -1 if b is one without an
   *  item (independent of all), null if b is not a weak initial */
  weakInitial(b: Branch): number | null {
    const tid = b.key >> 1;
    const at = this.firstOf(tid);
    if (at >= 0) {
      const ev = this.eventAt(at);
      if (ev.key !== b.key || (b.choice >= 0 && ev.choice >= 0 && ev.choice !== b.choice)) return null;
      for (let i = 0; i < at; i++) if (this.removed[i] !== true && this.precedes(i, at)) return null;
      return at;
    }
    for (let i = 0; i < this.items.length; i++) {
      if (this.removed[i] !== true && dependent(b.fp, this.eventAt(i).fp)) return null;
    }
    return -1;
  }

  take(at: number): void {
    if (at >= 0) this.removed[at] = true;
  }

  /** what is left, as branch labels in order */
  rest(): Branch[] {
    const out: Branch[] = [];
    for (let i = 0; i < this.items.length; i++) {
      if (this.removed[i] === true) continue;
      const ev = this.eventAt(i);
      out.push({ key: ev.key, choice: ev.choice, fp: ev.fp });
    }
    return out;
  }
}

/**
 * Inserts `v` into `tree` unless a sleeping branch covers it; true when a branch was
 * added. A top-level branch another part of a split search explores (`foreign`) is not
 * extended: that part never learns of this race, so what v adds below it becomes a
 * branch of this part's own, starting with the same event.
 */
export function insertSequence(
  tree: WakeupNode[],
  sleep: readonly Branch[],
  v: WakeupSequence,
  foreign?: (w: WakeupNode) => boolean,
): boolean {
  for (const s of sleep) if (v.weakInitial(s) !== null) return false;
  let level = tree;
  for (;;) {
    if (v.empty) return false;
    let next: WakeupNode | null = null;
    let abroad: WakeupNode | null = null;
    for (const child of level) {
      if (level === tree && foreign?.(child) === true) {
        abroad ??= v.weakInitial(child) !== null ? child : null;
        continue;
      }
      const at = v.weakInitial(child);
      if (at === null) continue;
      v.take(at);
      next = child;
      break;
    }
    if (next === null && abroad !== null) {
      // below a foreign branch: a copy of its first event, this part's own
      const at = v.weakInitial(abroad);
      if (at !== null) v.take(at);
      if (abroad.children.length === 0 || v.empty) return false;
      level.push(chain([abroad, ...v.rest()]));
      return true;
    }
    if (next === null) {
      level.push(chain(v.rest()));
      return true;
    }
    if (next.children.length === 0) return false;
    level = next.children;
  }
}

/** A single event to explore from a node (a full-expansion backtrack point). */
export function insertSingle(tree: WakeupNode[], sleep: readonly Branch[], b: Branch): boolean {
  if (sleep.some((s) => s.key === b.key && (s.choice === b.choice || s.choice < 0 || b.choice < 0))) return false;
  return addChild(tree, b);
}

/** b as a new leaf of tree, unless a child already covers it (choice -1 covers any choice, either way) */
export function addChild(tree: WakeupNode[], b: Branch): boolean {
  if (tree.some((c) => c.key === b.key && (c.choice === b.choice || c.choice < 0 || b.choice < 0))) return false;
  tree.push({ key: b.key, choice: b.choice, fp: b.fp, children: [] });
  return true;
}

function chain(rest: readonly Branch[]): WakeupNode {
  let node: WakeupNode | null = null;
  for (let i = rest.length - 1; i >= 0; i--) {
    const b = rest[i];
    if (b === undefined) continue;
    node = { key: b.key, choice: b.choice, fp: b.fp, children: node === null ? [] : [node] };
  }
  if (node === null) throw new Error('internal error: empty wakeup sequence');
  return node;
}
