/**
 * The candidate actions where a walk of a log stopped: each thread's next event from a
 * place in the walk's order on (a divergence names them, whichever pass found it).
 *
 * Invariant: at most 8 events, one a thread, found within 4096 places of the start.
 */
import type { TraceColumns } from './trace_columns.js';
import { describeEvent } from './trace_event.js';

/** Each thread's next event in `order` (rows; -1 holes skipped) from the place `from` on. */
export function nextOfEachThread(cols: TraceColumns, order: Int32Array, from: number): string[] {
  const seen = new Set<number>();
  const out: string[] = [];
  for (let i = from; i < order.length && i < from + 4096 && out.length < 8; i++) {
    const r = order[i] ?? -1;
    if (r < 0) continue;
    const e = cols.event(r);
    if (seen.has(e.tid)) continue;
    seen.add(e.tid);
    out.push(describeEvent(e));
  }
  return out;
}
