/**
 * The glue between the report and the simulator: the views of counterexamples (replayed
 * here on the unmutated sources, or read from where a mutation run stored its kill's
 * view: properties/counterexample_view.ts), and the property catalogue's statements.
 * Everything else in apps/report/ draws that data and never runs the model.
 *
 * A counterexample found on a mutant replays only with the mutant applied. Its view is
 * stored when the kill is found; for a kill without one, mutant_replay.ts runs this file
 * as a script inside the mutant's scratch copy,
 *
 *   tsx apps/report/counterexample_replay.ts CX.json OUT.json [SHOWN-AS] [REPLAY-COMMAND]
 *
 * which writes the view as JSON to OUT.json (a file, not stdout: a long trace is bigger
 * than the child's captured output).
 */
import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROPERTIES } from '../../src/check/catalogue.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayToView } from '../../properties/counterexample_view.js';

export { readStoredView, replayCommand, replayToView } from '../../properties/counterexample_view.js';

/** The mutant a counterexample file names (null: it replays on the unmutated sources). */
export function mutantOf(file: string): string | null {
  return loadCounterexample(file).mutant;
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
