/**
 * `npm run replay -- FILE` for a counterexample of the C tier (its file says `tier: "c"`):
 * the scenario and its schedule run again by the C tier's harness under the scheduler,
 * judged at the file's level; prints the run's records (the last 80 lines, or all with
 * --full) and the verdict, and returns the exit code of the run that found it. A schedule that is not
 * a path of its scenario is bad input (exit 2): it would replay some other run.
 */
import { describeScenario } from '../../model/scenario/scenario.js';
import { replayCTier } from '../../model/ctier/replay_ctier.js';
import type { CounterexampleFile } from '../../properties/counterexample_file.js';
import { propertyInfo } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations, type ExitCode } from '../../src/check/exit_codes.js';
import { usageError } from './cli_args.js';

export function replayCTierFile(file: string, cx: CounterexampleFile, full: boolean, library?: string): ExitCode {
  const level = cx.level ?? 2;
  const r = replayCTier(cx.scenario, cx.choices, level, {
    ...(library !== undefined ? { library, fresh: true } : {}),
    ...(full ? {} : { last: 80 }),
  });
  if (r.scheduleProblem !== null)
    usageError('replay', `${file}: choices: ${r.scheduleProblem}; not a schedule tierlab saved for this scenario`);
  const v = r.result.violation;
  process.stdout.write(
    [
      `C tier, level ${level}; scenario: ${describeScenario(cx.scenario)}`,
      `schedule: [${cx.choices.join(',')}]${cx.mutant !== null ? `  (found on mutant ${cx.mutant})` : ''}`,
      '',
      ...r.lines,
      '',
      v === null
        ? `no violation (${r.result.steps} steps)${cx.mutant !== null && library === undefined ? ': this counterexample needs its mutant applied (npm run mutants -- --tier c --replay FILE)' : ''}`
        : `VIOLATED ${v.property}: ${propertyInfo(v.property)?.statement ?? ''}\n  ${v.detail}`,
      '',
    ].join('\n'),
  );
  return v === null ? EXIT.ok : exitForViolations([v.property]);
}
