/**
 * How much of the C catalogue a run's log alone reveals: each C counterpart of a catalogue
 * defect (mutants/ctier/) built in a scratch copy, killed under tierlab's scheduler (level
 * 2, seeded random schedules of the suite aimed at it, as test/ctier/catalogue.test.ts
 * does), and its killing run's events then read as a free run's log by the trace check
 * (src/check/trace/): by the protocol's rules alone (check-trace's default), and with the
 * replay through the reference and the standard checkers (--reference, given the
 * scenario's configuration, as a run's own configuration file would give it): rejected
 * (by which rule or property), or consumed whole (the defect needs what only the engine
 * or the scheduler sees to show).
 *   npx tsx scripts/trace_catalogue.ts [RUNS (600)]
 * Prints one row per defect and the counts; writes nothing. Bounded by runs.
 */
import { loadCatalogue, REPO_ROOT } from '../mutants/lib/catalogue.js';
import { killCMutant } from '../mutants/lib/ctier_kill.js';
import { buildCTierScratch } from '../mutants/lib/ctier_scratch.js';
import { harnessScenario, referenceSetup } from '../model/ctier/harness_config.js';
import { runCTier } from '../model/ctier/run_ctier.js';
import type { Suite } from '../properties/arbitraries.js';
import { checkTrace, DEFAULT_TRACE_OPTIONS, type TraceVerdict } from '../src/check/trace/trace_check.js';
import { columnsFromRecords } from '../src/check/trace/trace_from_records.js';
import { orderLog } from '../src/check/trace/trace_order.js';
import { CTierHarness } from '../src/engine/native/ctier_harness.js';

/** the suite aimed at each defect (as test/ctier/catalogue.test.ts has it) */
const SUITE: Record<string, Suite> = {
  'abandon-frees-victim': 'shutdown',
  'budget-by-payload': 'general',
  'driver-already-as-fresh-start': 'lifecycle',
  'enqueue-after-stop': 'shutdown',
  'failed-upload-no-decrement': 'wide',
  'fill-wait-queue-empty': 'full-groups',
  'fill-wait-with-group-open': 'general',
  'heat-file-counts-unchecked': 'lifecycle',
  'heat-file-trailing-bytes-accepted': 'lifecycle',
  'issue-stride-overrun': 'wide',
  'note-planned-twice-refunds': 'lifecycle',
  'null-weights-offered': 'full-groups',
  'planned-null-keeps-reservation': 'wide',
  'shutdown-leaks-tensors': 'fill-once',
  'shutdown-no-wake': 'shutdown',
  'streaming-pointer-retained': 'streaming',
  'swaps-turned-off': 'shutdown',
  'swaps-without-reclaim': 'shutdown',
  'take-failure-drops-experts': 'streaming',
  'trunk-worst-value-first': 'general',
  'victim-freed-while-group-open': 'shutdown',
  'warmstart-frees-live-copy': 'shutdown',
};

const runs = Number(process.argv[2] ?? 600);
const entries = await loadCatalogue(`${REPO_ROOT}/mutants/ctier`);
let rejected = 0;
let rejectedRef = 0;
let killed = 0;
const why = (v: TraceVerdict): string =>
  v.whole ? 'consumed whole' : `REJECTED: ${(v.divergence?.failed ?? '').slice(0, 110)}`;
for (const e of entries) {
  const scratch = buildCTierScratch(REPO_ROOT, e.mutant);
  const h = new CTierHarness(scratch.library);
  try {
    const suite = SUITE[e.mutant.id] ?? 'mixed';
    const kill = { runs, seed: 20261129, level: 2, strategy: 'random', fresh: false, shrinkRuns: 0 } as const;
    const k = killCMutant(h, { ...kill, suites: [suite] });
    const f = k.failure;
    if (f === null) {
      process.stdout.write(`| ${e.mutant.id} | survived ${k.runs} runs | - |\n`);
      continue;
    }
    killed++;
    const strategy = { kind: 'choices', choices: f.choices } as const;
    const r = runCTier(h, harnessScenario(f.scenario), { level: 2, strategy, keepRecords: true });
    const log = orderLog(columnsFromRecords(r.records ?? [], e.mutant.id));
    const v = checkTrace(log);
    const setup = referenceSetup(f.scenario);
    const w = checkTrace(log, { ...DEFAULT_TRACE_OPTIONS, reference: setup });
    if (!v.whole) rejected++;
    if (!w.whole) rejectedRef++;
    process.stdout.write(`| ${e.mutant.id} | ${f.property} | ${why(v)} | ${why(w)} |\n`);
  } finally {
    h.close();
    scratch.remove();
  }
}
process.stdout.write(
  `\n${rejected} of ${killed} killed defects rejected by the trace check's rules from the log alone, ${rejectedRef} with --reference (${entries.length} in the C catalogue)\n`,
);
