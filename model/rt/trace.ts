/**
 * The trace of a run: one typed record per executed step (trace_event.ts: the op and its
 * result, a sync event, a tier call or return, a violation), printable as one line per
 * record or one lane per thread, and hashable. The words are derived from the records
 * (trace_text.ts), never stored: same seed and choices => same records => same lines,
 * byte for byte.
 */
import { createHash } from 'node:crypto';
import type { TraceEvent } from './trace_event.js';
import { eventText, type DescribeOp } from './trace_text.js';

export interface TraceRecord {
  readonly step: number;
  /** virtual time, microseconds */
  readonly t: number;
  readonly tid: number;
  readonly event: TraceEvent;
}

export class Trace {
  readonly records: TraceRecord[] = [];
  readonly threadNames: string[] = [];

  /** `describeOp`: how the world that answered the ops prints them */
  constructor(private readonly describeOp: DescribeOp) {}

  add(step: number, t: number, tid: number, event: TraceEvent): void {
    this.records.push({ step, t, tid, event });
  }

  nameThread(tid: number, name: string): void {
    this.threadNames[tid] = name;
  }

  /** a thread's name, or its id where the trace never named it */
  nameOf(tid: number): string {
    return this.threadNames[tid] ?? String(tid);
  }

  /** The words of one record's event. */
  text(r: TraceRecord): string {
    return eventText(r.event, (tid) => this.nameOf(tid), this.describeOp);
  }

  /** One line per record: step, time, thread, op. */
  lines(): string[] {
    return this.records.map((r) => `${r.step} ${r.t.toFixed(3)} ${this.nameOf(r.tid)} ${this.text(r)}`);
  }

  hash(): string {
    const h = createHash('sha256');
    for (const line of this.lines()) h.update(line).update('\n');
    return h.digest('hex');
  }

  /** Lanes: a column per thread, the op written in its thread's column. */
  lanes(opts: { width?: number; last?: number } = {}): string {
    const width = opts.width ?? 30;
    const names = this.threadNames.map((n, i) => n ?? `t${i}`);
    const header = ['  step      t(us) ', ...names.map((n) => pad(n, width))].join('|');
    const out = [header, '-'.repeat(header.length)];
    const from = opts.last !== undefined ? Math.max(0, this.records.length - opts.last) : 0;
    if (from > 0) out.push(`  ... ${from} earlier records elided (use --full) ...`);
    for (const r of this.records.slice(from)) {
      const text = this.text(r);
      const cols = names.map((_, i) => (i === r.tid ? pad(text, width) : ' '.repeat(width)));
      out.push([`${String(r.step).padStart(6)} ${r.t.toFixed(2).padStart(10)} `, ...cols].join('|').trimEnd());
    }
    return out.join('\n');
  }
}

function pad(s: string, width: number): string {
  return s.length >= width ? s.slice(0, width - 1) + '…' : s.padEnd(width);
}
