/**
 * `npm run replay -- FILE --export-c OUT.c`: a C tier counterexample written as a standalone
 * C regression test (apps/export_c/export_c.ts). Refused, one line and exit 2: a file that
 * is not a C tier counterexample, one whose `mutant` is not a defect of the C catalogue
 * (mutants/ctier/), and one whose failure C cannot see at the tier's boundary, or that lives
 * in the engine driver (apps/export_c/export_scope.ts says why for each).
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import type { Mutant } from '../../mutants/lib/types.js';
import { exportCTest } from '../export_c/export_c.js';
import { exportRefusal } from '../export_c/export_scope.js';
import type { CounterexampleFile } from '../../properties/counterexample_file.js';
import { EXIT, type ExitCode } from '../../src/check/exit_codes.js';
import { usageError } from './cli_args.js';
import { shownPath } from './output_dir.js';

async function catalogueMutant(file: string, id: string): Promise<Mutant> {
  const entries = await loadCatalogue(join(REPO_ROOT, 'mutants/ctier'));
  const m = entries.find((e) => e.mutant.id === id)?.mutant;
  if (m === undefined)
    usageError('replay', `${file}: unknown defect '${id}': not one of the C catalogue's (mutants/ctier/)`);
  return m;
}

/** The test's name: the output file's name, as a C string and a file name both read it. */
function testName(out: string): string {
  return (
    basename(out)
      .replace(/\.c$/, '')
      .replace(/[^A-Za-z0-9_.-]/g, '_') || 'regression'
  );
}

export async function exportCFile(file: string, cx: CounterexampleFile, out: string): Promise<ExitCode> {
  if (cx.tier !== 'c')
    usageError('replay', `${file}: --export-c: not a C tier counterexample (the file has no "tier": "c")`);
  const mutant = cx.mutant !== null ? await catalogueMutant(file, cx.mutant) : null;
  const refusal = exportRefusal(cx.property, mutant);
  if (refusal !== null) usageError('replay', `${file}: --export-c: not exportable: ${refusal}`);
  const text = exportCTest(testName(out), cx);
  try {
    writeFileSync(out, text);
  } catch (e) {
    usageError('replay', `--export-c ${out}: cannot write it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const lines = text.split('\n').length;
  process.stdout.write(
    `wrote ${shownPath(out)} (${lines} lines): ${cx.property} on ${cx.mutant ?? 'the tier'}, ` +
      `${cx.choices.length} scheduler choices; its header says how to build it\n`,
  );
  return EXIT.ok;
}
