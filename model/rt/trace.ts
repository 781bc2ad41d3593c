/**
 * The trace of a run: one record per executed op, printable as one lane per thread,
 * and hashable (same seed and choices => same trace, byte for byte).
 */
import { createHash } from 'node:crypto';

export interface TraceRecord {
  readonly step: number;
  /** virtual time, microseconds */
  readonly t: number;
  readonly tid: number;
  readonly text: string;
}

export class Trace {
  readonly records: TraceRecord[] = [];
  readonly threadNames: string[] = [];

  add(step: number, t: number, tid: number, text: string): void {
    this.records.push({ step, t, tid, text });
  }

  nameThread(tid: number, name: string): void {
    this.threadNames[tid] = name;
  }

  /** One line per record: step, time, thread, op. */
  lines(): string[] {
    return this.records.map((r) => `${r.step} ${r.t.toFixed(3)} ${this.threadNames[r.tid] ?? r.tid} ${r.text}`);
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
      const cols = names.map((_, i) => (i === r.tid ? pad(r.text, width) : ' '.repeat(width)));
      out.push([`${String(r.step).padStart(6)} ${r.t.toFixed(2).padStart(10)} `, ...cols].join('|').trimEnd());
    }
    return out.join('\n');
  }
}

function pad(s: string, width: number): string {
  return s.length >= width ? s.slice(0, width - 1) + '…' : s.padEnd(width);
}
