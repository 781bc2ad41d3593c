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
import type { TraceColumns } from './trace_columns.js';

export interface OrderedLog {
  readonly cols: TraceColumns;
  /** the row of each seq, by seq - first; -1 where a seq is absent */
  readonly slots: Int32Array;
  readonly first: number;
  readonly count: number;
}

/** Places every event of one log at its seq; throws an InputError on a seq given twice. */
export function orderLog(cols: TraceColumns): OrderedLog {
  const seqs = cols.num[0] ?? new Float64Array(0);
  const n = cols.n;
  if (n === 0) return { cols, slots: new Int32Array(0), first: 1, count: 0 };
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (let r = 0; r < n; r++) {
    const s = seqs[r] ?? 0;
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  const span = hi - lo + 1;
  if (span > n * 4 + 1024)
    throw new InputError(
      cols.files[0] ?? 'log',
      `seq runs from ${lo} to ${hi} with only ${n} events: most of the log is missing`,
    );
  const slots = new Int32Array(span).fill(-1);
  for (let r = 0; r < n; r++) {
    const at = (seqs[r] ?? 0) - lo;
    const was = slots[at] ?? -1;
    if (was >= 0) {
      const e = cols.event(r);
      const w = cols.event(was);
      throw new InputError(
        `${e.file}:${e.line}`,
        `seq ${e.seq} appears twice (also ${w.file}:${w.line}): two runs' logs given as shards of one?`,
      );
    }
    slots[at] = r;
  }
  return { cols, slots, first: lo, count: n };
}
