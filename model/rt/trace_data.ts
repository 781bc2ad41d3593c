/**
 * A trace as plain data, for readers in other processes and files (the HTML report's lane
 * diagrams, a kill's stored view): each record keeps its typed event with the world's
 * handles and results reduced to what a reader needs (an op's kind, family and whether it
 * failed; a call's arguments and a return's value in the trace's words), and its words.
 * JSON in, JSON out: nothing here points into a run.
 *
 * Invariant: `text` is the record's line text (trace_text.ts), byte for byte.
 */
import { callArgs, returnValue } from '../../src/ops_text.js';
import type { MarkName, TierApi, WorldOpKind } from '../../src/ops.js';
import type { Trace } from './trace.js';
import { OP_FAMILY, opFailed, type OpFamily, type TraceEvent } from './trace_event.js';

/** The events that are plain data already, as recorded. */
type PlainEvent = Exclude<TraceEvent, { readonly k: 'call' | 'ret' | 'mark' | 'op' }>;

export type TraceEventData =
  | PlainEvent
  | { readonly k: 'call'; readonly fn: TierApi; readonly args: string | null }
  | { readonly k: 'ret'; readonly fn: TierApi; readonly value: string }
  | { readonly k: 'mark'; readonly what: MarkName; readonly detail: string | null }
  | { readonly k: 'op'; readonly op: WorldOpKind; readonly family: OpFamily; readonly failed: boolean };

export interface TraceRecordData {
  readonly step: number;
  /** virtual time after the record's op, microseconds */
  readonly t: number;
  readonly tid: number;
  readonly event: TraceEventData;
  /** the record's words, as the trace prints them */
  readonly text: string;
}

export interface TraceData {
  /** thread id -> name (null where a trace never named the thread) */
  readonly threadNames: readonly (string | null)[];
  readonly records: readonly TraceRecordData[];
}

export function eventData(e: TraceEvent): TraceEventData {
  switch (e.k) {
    case 'call':
      return { k: 'call', fn: e.call.fn, args: callArgs(e.call) };
    case 'ret':
      return { k: 'ret', fn: e.ret.fn, value: returnValue(e.ret) };
    case 'mark':
      return { k: 'mark', what: e.what, detail: e.detail ?? null };
    case 'op':
      return { k: 'op', op: e.op.k, family: OP_FAMILY[e.op.k], failed: opFailed(e) };
    default:
      return e;
  }
}

export function traceData(trace: Trace): TraceData {
  return {
    threadNames: Array.from(trace.threadNames, (n) => n ?? null),
    records: trace.records.map((r) => ({
      step: r.step,
      t: r.t,
      tid: r.tid,
      event: eventData(r.event),
      text: trace.text(r),
    })),
  };
}
