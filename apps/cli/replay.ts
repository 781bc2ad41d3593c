/**
 * `npm run replay -- FILE [--full] [--html FILE] [--strict] [--export-c OUT.c]`: re-runs a saved counterexample and prints the same
 * trace window (one lane per thread) and the same verdict as the run that found it, byte
 * for byte. A counterexample found on a mutant names it; replay it with `npm run mutants --
 * --replay FILE`, which applies the mutant first (--html draws the mutant's run either way).
 *
 * Exits 0 when no property is violated (a fixed bug's replay prints "no violation", and
 * how to put the bug back when the file has its regression patch), 1 or 3 by the
 * violated property's kind, 2 on bad input: an unreadable or malformed file, or a
 * schedule that is not a path of its scenario (a choice beyond its point's options,
 * choices the run never reaches): such a schedule would replay some other run. A
 * schedule that violates another property than the one the file names is said so.
 * With --strict (what `npm run mutants -- --replay` asks for, where the mutant or the
 * regression patch is applied), a replay that does not violate the named property is a
 * failure, exit 2: the file no longer checks what it names, and must not pass in silence.
 * With --export-c OUT.c a C tier counterexample is written as a standalone C regression
 * test instead of replayed (apps/cli/export_c.ts; exit 0, or 2 when it cannot be).
 */
import { describeScenario } from '../../model/scenario/scenario.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { printedTrace, replayCounterexample } from '../../properties/runner.js';
import { propertyInfo } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations, type ExitCode } from '../../src/check/exit_codes.js';
import { writeCounterexampleHtml } from '../report/write_report.js';
import { shownPath } from './output_dir.js';
import { parseOrFail, sharedOptions, usageError } from './cli_args.js';
import { ensureHarnessBuilt } from './ctier_build.js';
import { replayCTierFile } from './ctier_replay.js';

function parseArgs(argv: readonly string[]) {
  const { values, positionals } = parseOrFail('replay', argv, {
    options: {
      ...sharedOptions('full'),
      html: { type: 'string' },
      strict: { type: 'boolean' },
      'export-c': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    usageError(
      'replay',
      `wants one counterexample file, got ${positionals.length} (usage: npm run replay -- COUNTEREXAMPLE.json [--full] [--html FILE] [--strict] [--export-c OUT.c])`,
    );
  }
  if (values['export-c'] !== undefined && (values.html !== undefined || values.strict === true || values.full === true))
    usageError('replay', '--export-c writes a test and replays nothing: it takes no --full, --html or --strict');
  return { values, file: positionals[0] ?? '' };
}

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const { values, file } = parseArgs(argv);
  // an InputError from the loader is one line and exit 2 (run_command.ts)
  const cx = loadCounterexample(file);
  const exportTo = values['export-c'];
  // loaded only here: the exporter reads the mutant catalogue (mutants/lib/), which a
  // scratch copy of the project made for a mutation run does not carry, and replay runs there
  if (exportTo !== undefined) return (await import('./export_c.js')).exportCFile(file, cx, exportTo);
  // a counterexample of the C tier replays on the C tier's harness (apps/cli/ctier_replay.ts)
  if (cx.tier === 'c') {
    ensureHarnessBuilt();
    return replayCTierFile(file, cx, values.full === true);
  }
  const r = replayCounterexample(cx.scenario, cx.choices);
  if (r.scheduleProblem !== null)
    usageError('replay', `${file}: choices: ${r.scheduleProblem}; not a schedule tierlab saved for this scenario`);
  // a fixed bug's file carries the patch that puts the bug back
  const putBack = cx.regression !== null ? ` (npm run mutants -- --replay ${file} puts it back)` : '';
  const fixedNote = `: the bug it records is fixed${putBack}`;
  process.stdout.write(
    [
      `scenario: ${describeScenario(cx.scenario)}`,
      `schedule: [${cx.choices.join(',')}]${cx.mutant !== null ? `  (found on mutant ${cx.mutant})` : ''}`,
      '',
      printedTrace(r, values.full === true),
      '',
      r.violation === null
        ? `no violation (${r.steps} steps)${cx.mutant !== null ? ': this counterexample needs its mutant applied' : fixedNote}`
        : `VIOLATED ${r.violation.property}: ${propertyInfo(r.violation.property)?.statement ?? ''}\n  ${r.violation.detail}`,
      `trace sha256 ${r.trace?.hash() ?? '-'}`,
      '',
    ].join('\n'),
  );
  if (values.html !== undefined) {
    try {
      // a mutant's counterexample is drawn from its mutant's run (its stored view, or replayed on it)
      const bytes = await writeCounterexampleHtml(file, values.html, (line) =>
        process.stderr.write(`replay: ${line}\n`),
      );
      process.stderr.write(`lane diagram in ${shownPath(values.html)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
    } catch (e) {
      usageError('replay', `--html ${(e as Error).message}`);
    }
  }
  const found = r.violation?.property ?? null;
  if (found !== cx.property && (found !== null || values.strict === true)) {
    const what = found === null ? 'no violation' : `it violates ${found} instead`;
    // run by `mutants --replay` on a fixed bug's file, the regression patch is applied
    const fix = values.strict === true && cx.regression !== null ? ': this file no longer checks its fix' : '';
    process.stderr.write(
      `replay: ${file}: the schedule does not reproduce ${cx.property}, the property it names (${what})${fix}\n`,
    );
    if (values.strict === true) return EXIT.badInput;
  }
  return found === null ? EXIT.ok : exitForViolations([found]);
}
