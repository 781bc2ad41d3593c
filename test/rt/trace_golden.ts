/**
 * The traces whose bytes are pinned (trace_golden.json): sampled scenarios of every suite
 * under seeded random schedules, each committed scenario under three seeds, and each
 * committed replay under its own schedule, and a run cut by the step limit (a violation). For each: the sha256 of its lines (the
 * determinism hash) and of its printed lanes. A change to how a trace is recorded or
 * printed must leave every one of them as it was: committed replays and the hashes users
 * compare depend on it.
 *
 *   node --import tsx test/rt/trace_golden.ts > test/rt/trace_golden.json   (re-pin, on purpose only)
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { runScenario, type RunResult } from '../../model/run.js';
import { ChoicesStrategy, RandomStrategy } from '../../model/rt/strategy.js';
import { scenarioArb, SUITES } from '../../properties/arbitraries.js';
import { committedScenario } from '../../properties/committed_scenarios.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface GoldenTrace {
  readonly records: number;
  readonly lines: string;
  readonly lanes: string;
}

function pin(r: RunResult): GoldenTrace {
  const lanes = createHash('sha256')
    .update(r.trace?.lanes() ?? '')
    .digest('hex');
  return { records: r.trace?.records.length ?? 0, lines: r.trace?.hash() ?? '', lanes };
}

/** name -> pinned hashes, in a fixed order */
export function goldenTraces(): Record<string, GoldenTrace> {
  const out: Record<string, GoldenTrace> = {};
  for (const suite of SUITES) {
    fc.sample(scenarioArb(suite), { seed: 2027, numRuns: 6 }).forEach((s, i) => {
      const scenario = { ...s, spuriousWakeups: i % 3 };
      out[`${suite}-${i}`] = pin(
        runScenario(scenario, { strategy: new RandomStrategy(`golden-${suite}-${i}`), traced: true }),
      );
    });
  }
  for (const f of readdirSync(join(ROOT, 'properties', 'scenarios')).sort()) {
    const name = f.replace(/\.json$/, '');
    for (const seed of [1, 2, 3])
      out[`scenario ${name} seed ${seed}`] = pin(
        runScenario(committedScenario(name), { strategy: new RandomStrategy(`golden-${seed}`), traced: true }),
      );
  }
  for (const f of readdirSync(join(ROOT, 'properties', 'replays')).sort()) {
    const cx = loadCounterexample(join(ROOT, 'properties', 'replays', f));
    out[`replay ${f}`] = pin(runScenario(cx.scenario, { strategy: new ChoicesStrategy(cx.choices), traced: true }));
  }
  // a run that ends in a violation (the step limit): its last record is the `!!` line
  out['default, step limit 150'] = pin(
    runScenario(committedScenario('default'), {
      strategy: new RandomStrategy('golden-limit'),
      traced: true,
      limits: { maxSteps: 150 },
    }),
  );
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(goldenTraces(), null, 1)}\n`);
}
