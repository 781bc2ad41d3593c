/**
 * One log's events in the order the tier's locks gave them: by `seq`, the counter every
 * event takes while its emitter holds the lock that orders it (native/tier/EVENTS.md).
 * Several files of one log (shards: one per process, per thread, or a log cut in pieces)
 * merge into that one order; lines of different threads reach a file out of order, so the
 * order is rebuilt by placing each event at its `seq`, in time linear in the log's length.
 *
 * Invariants: a `seq` appears once in a log (twice is bad input: two runs' logs given as
 * shards of one); a `seq` that is absent is a hole the check reports, never skips.
 */
import { InputError } from '../../input/input_error.js';
import type { TraceEvent } from './trace_event.js';

export interface OrderedLog {
  /** the events by seq - first; undefined where a seq is absent */
  readonly slots: readonly (TraceEvent | undefined)[];
  readonly first: number;
  readonly count: number;
}

/** Places every event of one log at its seq; throws an InputError on a seq given twice. */
export function orderLog(events: readonly TraceEvent[]): OrderedLog {
  if (events.length === 0) return { slots: [], first: 1, count: 0 };
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const e of events) {
    if (e.seq < lo) lo = e.seq;
    if (e.seq > hi) hi = e.seq;
  }
  const span = hi - lo + 1;
  if (span > events.length * 4 + 1024)
    throw new InputError(
      `${events[0]?.file ?? 'log'}`,
      `seq runs from ${lo} to ${hi} with only ${events.length} events: most of the log is missing`,
    );
  const slots = new Array<TraceEvent | undefined>(span).fill(undefined);
  for (const e of events) {
    const at = e.seq - lo;
    const was = slots[at];
    if (was !== undefined)
      throw new InputError(
        `${e.file}:${e.line}`,
        `seq ${e.seq} appears twice (also ${was.file}:${was.line}): two runs' logs given as shards of one?`,
      );
    slots[at] = e;
  }
  return { slots, first: lo, count: events.length };
}
