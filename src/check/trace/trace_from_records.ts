/**
 * A scheduled run's events as a free run's log: the tier's, the gate's, the trunk's and
 * the backend's events of a C tier run under tierlab's scheduler (src/check/replay/
 * records.ts), numbered 1, 2, ... in the run's one order, as the log's `seq`. The trace
 * check then reads what a real run's log would say, for every schedule a search makes.
 *
 * Invariant: the events keep the records' order and fields; records that are not events
 * (the scheduler's trace, the engine driver's, the object tables) are left out.
 */
import type { Rec } from '../replay/records.js';
import { FN_NAMES } from '../replay/schema.js';
import { TraceColumns } from './trace_columns.js';
import { LOCKS } from '../replay/schema.js';

export function columnsFromRecords(recs: readonly Rec[], file = 'run'): TraceColumns {
  const cols = new TraceColumns();
  let seq = 0;
  for (const r of recs) {
    if (r.c !== 'event') continue;
    seq++;
    cols.push({
      ...r,
      seq,
      lk: LOCKS[r.lk] ?? '-',
      fn: FN_NAMES[r.fn] ?? '',
      after: 0,
      want_x: r.wantX,
      file,
      line: seq,
    });
  }
  return cols;
}
