/**
 * The bench's `check-trace` section: how fast `npm run check-trace` checks a long free
 * run's log, per core, and whether its cost grows linearly with the log. The log is real:
 * the C tier's stress program (real threads, the fake backend) writes one, and the long
 * logs repeat its runs one after another (each repeat's seqs shifted past the last, as
 * one process running the same runs again would number them), at two lengths. The time
 * is the process's CPU time of reading, ordering and checking (one thread), beside the
 * wall time.
 *
 * Invariant: every measured log must be consumed whole (else the section reports it and
 * the bench exits 1); the temporary folder is removed whatever happens.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTrace } from '../../../src/check/trace/trace_check.js';
import { orderLog } from '../../../src/check/trace/trace_order.js';
import { readTraceFile } from '../../../src/check/trace/trace_files.js';
import type { TraceReferenceRow } from './trace_reference_bench.js';

export interface TraceBenchRow {
  readonly events: number;
  readonly bytes: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly eventsPerCpuSecond: number;
  readonly eventsPerWallSecond: number;
  readonly whole: boolean;
}

export interface TraceBenchSection {
  readonly unit: string;
  readonly unitEvents: number;
  readonly rows: TraceBenchRow[];
  /** CPU seconds per event of the longer log over the shorter's (1: linear) */
  readonly linearity: number;
  /** the replay through the reference (--reference), on scheduled runs' logs */
  readonly reference?: TraceReferenceRow;
}

/** Writes copies of the unit log one after another, each copy's seqs shifted past the previous copy's. */
function writeRepeated(file: string, unit: readonly string[], copies: number): { bytes: number; events: number } {
  let bytes = 0;
  writeFileSync(file, '');
  for (let c = 0; c < copies; c++) {
    const shift = c * unit.length;
    const text = `${unit.map((l) => l.replace(/^\{"seq":(\d+),/, (_, s: string) => `{"seq":${Number(s) + shift},`)).join('\n')}\n`;
    appendFileSync(file, text);
    bytes += text.length;
  }
  return { bytes, events: copies * unit.length };
}

function measure(file: string, bytes: number): TraceBenchRow {
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  const v = checkTrace(orderLog(readTraceFile(file)));
  const cpu = process.cpuUsage(cpu0);
  const wallSeconds = Number(process.hrtime.bigint() - wall0) / 1e9;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    events: v.events,
    bytes,
    cpuSeconds,
    wallSeconds,
    eventsPerCpuSecond: v.events / cpuSeconds,
    eventsPerWallSecond: v.events / wallSeconds,
    whole: v.whole,
  };
}

export function measureCheckTrace(log: (line: string) => void, copies: readonly [number, number]): TraceBenchSection {
  const make = spawnSync('make', ['-s', '-C', 'native', 'build/tier/tier_stress'], { encoding: 'utf8' });
  if (make.status !== 0) throw new Error(`make -C native build/tier/tier_stress failed: ${make.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'tierlab-trace-bench-'));
  try {
    const unitFile = join(dir, 'unit.ndjson');
    const args = ['--iterations', '40', '--sleep-us', '0', '--seed', '1', '--log', unitFile];
    const run = spawnSync('native/build/tier/tier_stress', args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the stress program failed: ${run.stdout}${run.stderr}`);
    const unit = readFileSync(unitFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const rows: TraceBenchRow[] = [];
    for (const k of copies) {
      const file = join(dir, `long-${k}.ndjson`);
      const { bytes } = writeRepeated(file, unit, k);
      measure(file, bytes); // warms the JIT up: the first run of a process runs the code cold
      const row = measure(file, bytes);
      rows.push(row);
      log(
        `  ${row.events.toLocaleString('en-US')} events: ${Math.round(row.eventsPerCpuSecond).toLocaleString('en-US')} events/s per core (${row.cpuSeconds.toFixed(2)} CPU s, ${row.wallSeconds.toFixed(2)} s wall)${row.whole ? '' : ' NOT CONSUMED WHOLE'}`,
      );
      rmSync(file);
    }
    const [a, b] = rows;
    const linearity = a !== undefined && b !== undefined ? b.cpuSeconds / b.events / (a.cpuSeconds / a.events) : 1;
    return { unit: `tier_stress ${args.slice(0, 6).join(' ')}`, unitEvents: unit.length, rows, linearity };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderCheckTrace(t: TraceBenchSection): string[] {
  const md = ["## check-trace: trace validation of a free run's log", ''];
  md.push(
    `The log: \`${t.unit}\` (${t.unitEvents.toLocaleString('en-US')} events, real threads), repeated run after run to each length. Read, ordered and checked on one thread.`,
    '',
    '| events | MB | CPU s | wall s | events/s per core | events/s wall | consumed whole |',
    '|---|---|---|---|---|---|---|',
  );
  for (const r of t.rows)
    md.push(
      `| ${r.events.toLocaleString('en-US')} | ${(r.bytes / 1e6).toFixed(0)} | ${r.cpuSeconds.toFixed(2)} | ${r.wallSeconds.toFixed(2)} | **${Math.round(r.eventsPerCpuSecond).toLocaleString('en-US')}** | ${Math.round(r.eventsPerWallSecond).toLocaleString('en-US')} | ${r.whole ? 'yes' : 'NO'} |`,
    );
  md.push(
    '',
    `Linearity: CPU time per event of the longer log over the shorter's: ${t.linearity.toFixed(2)} (1.00 is linear).`,
    '',
  );
  const r = t.reference;
  if (r !== undefined)
    md.push(
      `With \`--reference\` (the rules, then the replay through the reference and the standard checkers, given the run's configuration): ${r.events.toLocaleString('en-US')} events of ${r.logs} scheduled runs' logs (12 scenarios of every suite, their events read as free runs' logs), **${Math.round(r.eventsPerCpuSecond).toLocaleString('en-US')}** events/s per core (${r.cpuSeconds.toFixed(2)} CPU s), ${r.whole} of ${r.logs} consumed whole. A flag, not the default: slower than the 500,000 events/s a long decode needs, and it needs the run's configuration, which a log does not carry.`,
      '',
    );
  return md;
}
