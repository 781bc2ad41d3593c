/**
 * Runs inside a mutant's scratch copy (copied there next to the mutated sources), never
 * in the working tree: it measures what the properties CLI's report leaves out.
 *
 *   tsx mutants/lib/probe.ts [--cx FILE [--view OUT --shown-as NAME --replay CMD]]
 *                            [--matrix-seconds S] [--seed N]
 *
 * --cx: replays the shrunk counterexample and reports its length in simulated steps (the
 * choices are in the file). --view: also writes its view (the trace of the mutant's run,
 * properties/counterexample_view.ts) to OUT, named NAME with replay command CMD: the kill's
 * lane diagram, replayed once, here where the mutant is applied. --matrix-seconds: samples
 * scenarios and schedules of every suite for S seconds in all, without shrinking and without stopping at the first
 * violation, and counts the runs each property fails: the row of the kill matrix. A run
 * that throws something other than a Violation counts as CRASH.
 * Prints one JSON object on stdout.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { scenarioArb, scheduleArb, SUITES } from '../../properties/arbitraries.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayCommand, viewOf } from '../../properties/counterexample_view.js';
import type { PropertyId } from '../../src/check/catalogue.js';

/** runs failing each property, and CRASH (mutants/lib/result.ts MatrixCounts; this file runs
 *  in a scratch copy that holds no other file of mutants/) */
type MatrixCounts = Partial<Record<PropertyId | 'CRASH', number>>;

const { values } = parseArgs({
  options: {
    cx: { type: 'string' },
    view: { type: 'string' },
    'shown-as': { type: 'string' },
    replay: { type: 'string' },
    'matrix-seconds': { type: 'string' },
    seed: { type: 'string' },
  },
  strict: true,
});

interface ProbeResult {
  steps: number | null;
  replayedProperty: string | null;
  matrix: MatrixCounts | null;
  matrixRuns: number;
}

const out: ProbeResult = { steps: null, replayedProperty: null, matrix: null, matrixRuns: 0 };

if (values.cx !== undefined) {
  const cx = loadCounterexample(values.cx);
  const r = runScenario(cx.scenario, { strategy: new ChoicesStrategy(cx.choices) });
  out.steps = r.steps;
  out.replayedProperty = r.violation?.property ?? null;
  if (values.view !== undefined) {
    const shownAs = values['shown-as'] ?? values.cx;
    writeFileSync(
      values.view,
      `${JSON.stringify(viewOf(cx, shownAs, values.replay ?? replayCommand(shownAs, cx.mutant)))}\n`,
    );
  }
}

const seconds = Number(values['matrix-seconds'] ?? '0');
if (seconds > 0) {
  const seed = Number(values.seed ?? '1');
  const matrix: MatrixCounts = {};
  const perSuiteMs = (seconds * 1000) / SUITES.length;
  for (const [i, suite] of SUITES.entries()) {
    const arb = fc.tuple(scenarioArb(suite), scheduleArb());
    const until = performance.now() + perSuiteMs;
    for (let chunk = 0; performance.now() < until; chunk++) {
      for (const [scenario, choices] of fc.sample(arb, { seed: seed + 1000 * i + chunk, numRuns: 20 })) {
        out.matrixRuns++;
        let id: PropertyId | 'CRASH' | null;
        try {
          id = runScenario(scenario, { strategy: new ChoicesStrategy(choices) }).violation?.property ?? null;
        } catch {
          id = 'CRASH';
        }
        if (id !== null) matrix[id] = (matrix[id] ?? 0) + 1;
        if (performance.now() >= until) break;
      }
    }
  }
  out.matrix = matrix;
}

process.stdout.write(JSON.stringify(out) + '\n');
