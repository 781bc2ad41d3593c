/**
 * The bench's row for `npm run check-trace -- --reference`: how fast a log the rules
 * consumed whole is replayed through the reference and the standard checkers. The reference
 * needs the run's configuration, which the stress program's log (the default path's row)
 * does not come with; the logs here are the C tier's runs under tierlab's scheduler
 * (12 seeded scenarios of every suite, one random schedule each, those the scheduled
 * replay accepts), read as free runs' logs with their scenarios as configuration. The time
 * is the process's CPU time of the rules' pass and the reference's replay (one thread),
 * after one warm-up pass over the same logs.
 *
 * Invariant: every measured log must be consumed whole (else the row says so and the bench
 * exits 1); the harness's temporary folder is removed by its close.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { harnessScenario, referenceSetup } from '../../../model/ctier/harness_config.js';
import { runCTier } from '../../../model/ctier/run_ctier.js';
import { SUITES, scenarioArb } from '../../../properties/arbitraries.js';
import { checkTrace, DEFAULT_TRACE_OPTIONS } from '../../../src/check/trace/trace_check.js';
import { columnsFromRecords } from '../../../src/check/trace/trace_from_records.js';
import { orderLog, type OrderedLog } from '../../../src/check/trace/trace_order.js';
import type { ReferenceSetup } from '../../../src/check/trace/trace_reference.js';
import { CTierHarness } from '../../../src/engine/native/ctier_harness.js';

export interface TraceReferenceRow {
  readonly logs: number;
  readonly events: number;
  readonly cpuSeconds: number;
  readonly eventsPerCpuSecond: number;
  /** logs consumed whole (rules and reference) */
  readonly whole: number;
}

const PER_SUITE = 12;

function scheduledLogs(): { log: OrderedLog; setup: ReferenceSetup }[] {
  const make = spawnSync('make', ['-s', '-C', 'native', 'tier-sched-lib'], { encoding: 'utf8' });
  if (make.status !== 0) throw new Error(`make -C native tier-sched-lib failed: ${make.stderr}`);
  const h = new CTierHarness();
  const out: { log: OrderedLog; setup: ReferenceSetup }[] = [];
  try {
    for (const suite of SUITES)
      fc.sample(scenarioArb(suite), { seed: 31, numRuns: PER_SUITE }).forEach((s, i) => {
        const r = runCTier(h, harnessScenario(s), {
          level: 2,
          strategy: { kind: 'random', seed: 1000 + i },
          keepRecords: true,
        });
        if (!r.ok || r.records === null) return;
        out.push({ log: orderLog(columnsFromRecords(r.records, `${suite}#${i}`)), setup: referenceSetup(s) });
      });
  } finally {
    h.close();
  }
  return out;
}

function pass(logs: readonly { log: OrderedLog; setup: ReferenceSetup }[]): TraceReferenceRow {
  const cpu0 = process.cpuUsage();
  let events = 0;
  let whole = 0;
  for (const x of logs) {
    const v = checkTrace(x.log, { ...DEFAULT_TRACE_OPTIONS, reference: x.setup });
    events += v.events;
    if (v.whole) whole++;
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { logs: logs.length, events, cpuSeconds, eventsPerCpuSecond: events / cpuSeconds, whole };
}

export function measureCheckTraceReference(log: (line: string) => void): TraceReferenceRow {
  const logs = scheduledLogs();
  pass(logs); // warms the JIT up
  const row = pass(logs);
  log(
    `  --reference: ${row.events.toLocaleString('en-US')} events of ${row.logs} scheduled runs' logs: ${Math.round(row.eventsPerCpuSecond).toLocaleString('en-US')} events/s per core (${row.cpuSeconds.toFixed(2)} CPU s), ${row.whole} of ${row.logs} consumed whole`,
  );
  return row;
}
