/**
 * The reading calls (PROTOCOL.md, "Stats mark", "Routing that prefers residents"), one
 * critical section each, inside the gate:
 *  - is_resident: the expert's residency;
 *  - stats: hits and misses since the last stats_mark, uploads, swaps, evictions dropped;
 *  - stats_mark: the hit and miss counters as of now become the mark;
 *  - prefer: the residency of each routing candidate, as it is under the lock.
 */
import type { SpecIo, SpecValue, Step } from './io.js';
import { slot, type SpecFamily, type SpecKey, type SpecState } from './state.js';
import { UNLOCK, type SpecCall } from './call.js';

/** A one-section call: `read` runs under the lock, its value is returned after. */
class ReadCall implements SpecCall {
  private value: SpecValue | null = null;
  constructor(
    readonly family: SpecFamily,
    private readonly read: (s: SpecState) => SpecValue,
  ) {}

  step(s: SpecState, _io: SpecIo): Step {
    if (this.value !== null) return { returned: this.value };
    this.value = this.read(s);
    return UNLOCK;
  }
}

export function isResidentCall(key: SpecKey): SpecCall {
  return new ReadCall('SPEC-STATS', (s) => ({ fn: 'bool', value: slot(s, key).resident }));
}

export function statsCall(): SpecCall {
  return new ReadCall('SPEC-STATS', (s) => ({
    fn: 'stats',
    stats: {
      hits: s.counters.hits - s.mark.hits,
      misses: s.counters.misses - s.mark.misses,
      uploads: s.counters.uploads,
      swaps: s.counters.swaps,
      evictedDropped: s.evictedDropped,
    },
  }));
}

export function statsMarkCall(): SpecCall {
  return new ReadCall('SPEC-STATS', (s) => {
    s.mark = { hits: s.counters.hits, misses: s.counters.misses };
    return { fn: 'bool', value: true };
  });
}

export function preferCall(layer: number, cands: readonly number[]): SpecCall {
  return new ReadCall('SPEC-PREFER', (s) => ({
    fn: 'mask',
    mask: cands.map((eid) => slot(s, { layer, eid }).resident),
  }));
}
