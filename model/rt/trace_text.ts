/**
 * A trace record's words: the one line per step that the determinism hash covers, `npm
 * run replay` prints and committed replays were pinned by (test/rt/trace_golden.json).
 * Derived from the typed event (trace_event.ts); the world's ops in the world's own words
 * (SimWorld.describe), the tier's calls and returns in src/ops_text.ts's.
 *
 * Invariant: the same event gives the same words, byte for byte, whenever it is printed.
 */
import { describeCall, describeReturn } from '../../src/ops_text.js';
import type { Op } from '../../src/ops.js';
import type { TraceEvent } from './trace_event.js';

/** How the world prints one of its ops with its result. */
export type DescribeOp = (op: Op, result: unknown) => string;

/** The words of one event; `nameOf` names a thread by its id. */
export function eventText(e: TraceEvent, nameOf: (tid: number) => string, describeOp: DescribeOp): string {
  switch (e.k) {
    case 'lock':
    case 'unlock':
      return e.mutex === undefined ? e.k : `${e.k} ${e.mutex}`;
    case 'wait':
      return `wait ${e.cv}`;
    case 'signal':
      return `signal ${e.cv}${e.waiters === 0 ? ' (no waiter)' : ''}`;
    case 'broadcast':
      return `broadcast ${e.cv} (${e.waiters} waiting)`;
    case 'woken':
      return e.how === 'spurious'
        ? 'woken (spurious)'
        : `woken (${e.how === 'signal' ? 'signalled' : 'broadcast'} by ${nameOf(e.by)})`;
    case 'retake':
      return `wakes, re-takes ${e.mutex ?? 'mx'}`;
    case 'spawn':
      return e.tid < 0 ? `spawn ${e.name} FAILED` : `spawn ${e.name} -> thread ${e.tid}`;
    case 'join':
      return `join ${nameOf(e.tid)}`;
    case 'end':
      return 'ends';
    case 'call':
      return describeCall(e.call);
    case 'ret':
      return describeReturn(e.ret);
    case 'mark':
      return `# ${e.what}${e.detail !== undefined ? ` ${e.detail}` : ''}`;
    case 'op':
      return describeOp(e.op, e.result);
    case 'violation':
      return `!! ${e.property}: ${e.detail}`;
  }
}
