/**
 * Splitting one DPOR search into parts that run apart (CI machines, or worker threads when
 * each keeps its own state cache) and together cover what the whole search covers. On one
 * machine without the cache, dpor/parallel.ts shares one tree instead.
 *
 * Every part runs the same search from the start, so until they split they build the
 * same tree. When the tree holds enough pending branches (at least SPLIT_PER_PART per
 * part), each part keeps every `count`-th of them, in position order, and marks the rest
 * foreign: it will not explore them, another part does. Branches inserted after the split
 * (races found in a part's own runs) stay with that part: no other part knows of them.
 *
 * A foreign branch counts as explored for the sleep sets (under a bound, as not to be
 * trusted: the part cannot know whether the bound cut it elsewhere), and a position above
 * one can no longer prune as a state-cache entry: its summary lacks the foreign part.
 *
 * Invariant: the split is decided by the search's own history, identical in every part,
 * so the parts agree on which branch is whose.
 */
import type { DporNode } from './node.js';
import type { Shard } from '../search_types.js';
import type { WakeupNode } from './wakeup_tree.js';

const SPLIT_PER_PART = 4;

export class ShardSplit {
  private readonly foreign = new WeakSet<WakeupNode>();
  private split = false;

  constructor(private readonly shard: Shard) {}

  /** after a run: split once the tree has enough pending branches for every part */
  consider(stack: readonly DporNode[]): void {
    if (this.split || this.shard.count <= 1) return;
    const pending: WakeupNode[] = [];
    for (const node of stack) for (const w of node.wut) pending.push(w);
    if (pending.length < (this.shard.splitAt ?? SPLIT_PER_PART) * this.shard.count) return;
    this.split = true;
    pending.forEach((w, i) => {
      if (i % this.shard.count !== this.shard.index) this.foreign.add(w);
    });
  }

  isForeign(w: WakeupNode): boolean {
    return this.foreign.has(w);
  }
}
