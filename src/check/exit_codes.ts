/**
 * Exit codes every tierlab command shares, so a script or a CI step can tell what kind of
 * failure a run found without reading its output:
 *   0  every check held
 *   1  a safety property was violated (something bad happened), or an oracle run was
 *      not token-exact or bit-identical
 *   2  bad input: an option, a scenario, a counterexample, a fixture, a library
 *   3  a liveness property was violated (a deadlock, a hang after shutdown, a livelock)
 *      and no safety property was
 *   4  incomplete: a search that promises a guarantee was cut short by its budget
 *   70 internal error: tierlab itself failed (please report it with the command)
 *   74 the environment failed: no space left or over quota where tierlab writes, a
 *      read-only file system, an I/O error, a temporary directory that is not a
 *      writable folder (sysexits' EX_IOERR; src/input/environment_error.ts)
 *   129, 130, 143 interrupted by SIGHUP, SIGINT or SIGTERM (128 + the signal's number)
 */
import { propertyInfo, type PropertyId } from './catalogue.js';

export const EXIT = {
  ok: 0,
  safety: 1,
  badInput: 2,
  liveness: 3,
  incomplete: 4,
  internal: 70,
  environment: 74,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for the properties violated in a run (safety wins over liveness). */
export function exitForViolations(ids: Iterable<PropertyId>): ExitCode {
  let code: ExitCode = EXIT.ok;
  for (const id of ids) {
    if (propertyInfo(id).kind === 'safety') return EXIT.safety;
    code = EXIT.liveness;
  }
  return code;
}

/** Exit codes a properties run may end with that carry a verdict (anything else is a crash). */
export const VERDICT_EXITS: readonly number[] = [EXIT.ok, EXIT.safety, EXIT.liveness, EXIT.incomplete];
