/**
 * A free run's log replayed through the reference (src/protocol_ref/) and tierlab's
 * standard checkers: the log's events as the scheduled replay's records
 * (trace_records.ts), fed to the same Replay a run under tierlab's scheduler gets
 * (src/check/replay/replay.ts, level 2: the tier's state kept from its events), with the
 * checkers every simulated run gets, the refinement against the reference among them.
 *
 * What the log does not say comes from the setup: the tier's configuration (the reference
 * builds its own state from it), the world's shape, the heat file on disk, and the
 * checkers (built where the engine's assembly may be imported: model/ctier/checkers.ts,
 * with whether the engine wanted swaps and whether nothing could fail). The engine's own
 * actions (routes, RAM copies, CPU experts, combines) are not in a tier's log: the combine
 * count is not judged (0 expected, none seen), and the driver's decisions (DRV-*) are not
 * checked.
 *
 * Invariants: the first violation wins, as in a scheduled run; a violation names the event
 * it came at (a record synthesized for an event, a lock released after it, names that
 * event), the last event before it and each thread's next event there; the same order
 * and setup give the same verdict. The check is bounded by the log's length.
 */
import type { PropertyId } from '../catalogue.js';
import { Replay, type CheckerFactory } from '../replay/replay.js';
import type { WorldShape } from '../replay/shadow_world.js';
import { Violation } from '../violation.js';
import type { TierConfig } from '../../tier/config.js';
import type { TraceEvent } from './trace_event.js';
import type { TraceColumns } from './trace_columns.js';
import { recordsFromLog } from './trace_records.js';
import { nextOfEachThread } from './trace_candidates.js';

export interface ReferenceSetup {
  readonly cfg: TierConfig;
  readonly world: Omit<WorldShape, 'expectedCombines'>;
  /** the heat file on disk before the run's first init (null: none or not known) */
  readonly heat: Uint8Array | null;
  /** the standard checkers and the refinement (model/ctier/checkers.ts, freeRunCheckers) */
  readonly checkers: CheckerFactory;
}

export interface ReferenceVerdict {
  /** the first violation (null: none in what was replayed) */
  readonly property: PropertyId | null;
  readonly detail: string;
  /** the event the violation came at (and its log row, -1: none), and the event before it */
  readonly at: TraceEvent | null;
  readonly atRow: number;
  readonly lastMatched: TraceEvent | null;
  readonly candidates: readonly string[];
  /** events replayed before the violation, or all that were replayed */
  readonly replayed: number;
  /** why the replay stopped before the log's end (the event then in `at`), or null */
  readonly cut: string | null;
}

export function referenceReplay(cols: TraceColumns, order: Int32Array, s: ReferenceSetup): ReferenceVerdict {
  const recs = recordsFromLog(cols, order, { heat: s.heat });
  const replay = new Replay(
    { records: recs.records, blob: recs.blob, level: 2, cfg: s.cfg, world: { ...s.world, expectedCombines: 0 } },
    s.checkers,
  );
  let v: Violation | null = null;
  try {
    replay.run();
    if (recs.cut === null) replay.atEnd();
  } catch (e) {
    if (!(e instanceof Violation)) throw e;
    v = e;
  }
  const at = v !== null ? Math.min(replay.at, recs.records.length - 1) : recs.records.length;
  const rowAt = v !== null ? eventRowAt(recs.rows, at) : (recs.cut?.row ?? -1);
  const replayed = countEvents(recs.rows, v !== null ? at : recs.records.length);
  const before = previousRow(recs.rows, v !== null ? at : recs.records.length, rowAt);
  return {
    property: v?.property ?? null,
    detail: v?.detail ?? '',
    at: rowAt >= 0 ? cols.event(rowAt) : null,
    atRow: rowAt,
    lastMatched: before >= 0 ? cols.event(before) : null,
    candidates: v !== null || recs.cut !== null ? nextOfEachThread(cols, order, placeOf(order, rowAt)) : [],
    replayed,
    cut: v === null ? (recs.cut?.why ?? null) : null,
  };
}

/** The event a record stands for: its own row, or the last event's before it (a lock released after it). */
function eventRowAt(rows: readonly number[], at: number): number {
  for (let i = at; i >= 0; i--) {
    const r = rows[i] ?? -1;
    if (r >= 0) return r;
  }
  return -1;
}

function previousRow(rows: readonly number[], at: number, not: number): number {
  for (let i = Math.min(at, rows.length) - 1; i >= 0; i--) {
    const r = rows[i] ?? -1;
    if (r >= 0 && r !== not) return r;
  }
  return -1;
}

function countEvents(rows: readonly number[], to: number): number {
  let n = 0;
  for (let i = 0; i < to && i < rows.length; i++) if ((rows[i] ?? -1) >= 0) n++;
  return n;
}

/** The place of row `row` in the walk's order (0 where the row is none or not in it). */
function placeOf(order: Int32Array, row: number): number {
  return row < 0 ? 0 : Math.max(order.indexOf(row), 0);
}
