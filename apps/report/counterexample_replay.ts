/**
 * The glue between the report and the simulator, and the only report file that imports
 * it: re-runs a counterexample file with the trace on and hands back plain data (the
 * trace records, thread names, what the replay found), and gives the property catalogue's
 * statements. Everything else in apps/report/ draws that data and never runs the model.
 *
 * It runs on whatever sources this process loaded. A counterexample found on a mutant
 * replays only with the mutant applied: mutant_replay.ts runs this file as a script inside
 * the mutant's scratch copy,
 *
 *   tsx apps/report/counterexample_replay.ts CX.json OUT.json [SHOWN-AS] [REPLAY-COMMAND]
 *
 * which writes the view as JSON to OUT.json (a file, not stdout: a long trace is bigger
 * than the child's captured output).
 */
import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { traceData } from '../../model/rt/trace_data.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { PROPERTIES, propertyInfo } from '../../src/check/catalogue.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayCounterexample } from '../../properties/runner.js';
import type { CounterexampleView } from './report_inputs.js';

/** The mutant a counterexample file names (null: it replays on the unmutated sources). */
export function mutantOf(file: string): string | null {
  return loadCounterexample(file).mutant;
}

/**
 * Replays `file` here. `shownAs` is the name the page gives it, `replay` the command that
 * prints the same trace (`npm run replay -- FILE`, or the mutants CLI's for a mutant).
 */
export function replayToView(
  file: string,
  shownAs: string = file,
  replay: string = `npm run replay -- ${shownAs}`,
): CounterexampleView {
  const cx = loadCounterexample(file);
  const r = replayCounterexample(cx.scenario, cx.choices);
  const found = r.violation !== null ? { property: r.violation.property, detail: r.violation.detail } : null;
  return {
    file: shownAs,
    property: cx.property,
    detail: cx.detail,
    mutant: cx.mutant,
    scenario: describeScenario(cx.scenario),
    choices: cx.choices,
    trace: r.trace !== null ? traceData(r.trace) : { threadNames: [], records: [] },
    violation: found,
    statement: propertyInfo(found?.property ?? cx.property)?.statement ?? null,
    replay,
    traceSha256: r.trace?.hash() ?? null,
  };
}

/** property id -> one-line statement */
export function propertyStatements(): Record<string, string> {
  return Object.fromEntries(PROPERTIES.map((p) => [p.id, p.statement]));
}

// run as a script (inside a mutant's scratch copy): replay and write the view as JSON;
// only as this file itself, not as a bundle that includes it (scripts/gpu/pack.sh's
// oracle.mjs, whose import.meta.url is the entry point's too)
const self = fileURLToPath(import.meta.url);
if (
  process.argv[1] !== undefined &&
  resolve(process.argv[1]) === self &&
  basename(self).startsWith('counterexample_replay.')
) {
  const [file, out, shownAs, replay] = process.argv.slice(2);
  if (file === undefined || out === undefined) {
    process.stderr.write(
      'usage: tsx apps/report/counterexample_replay.ts CX.json OUT.json [SHOWN-AS] [REPLAY-COMMAND]\n',
    );
    process.exit(2);
  }
  try {
    writeFileSync(out, JSON.stringify(replayToView(file, shownAs, replay)) + '\n');
  } catch (e) {
    process.stderr.write(`counterexample replay: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
