/**
 * What one mutant run found, as written to reports/mutants.json.
 *
 * Status:
 *  - killed: a property failed; `property` names it and the counterexample replays it;
 *  - survived: the whole budget ran and every property held;
 *  - stillborn: the patch does not apply, does not compile, or the run crashed or hung
 *    (`error` says which): no verdict on the properties, never counted as killed;
 *  - equivalent: not run, equivalent by construction (`equivalentReason`);
 *  - inconclusive: a property failed, but the shrunk counterexample fails on the
 *    unmutated sources too: a bug of the sources, not a kill (`error` says so).
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import type { ViolationCounts } from '../../properties/types.js';
import type { MutantFamily, MutantKind } from './types.js';

/** Runs of the sampling pass failing each property, and `CRASH`: runs in which the
 *  simulator itself threw outside the tier's threads. */
export type MatrixCounts = Partial<Record<PropertyId | 'CRASH', number>>;

export type MutantStatus = 'killed' | 'survived' | 'stillborn' | 'equivalent' | 'inconclusive';

export interface MutantResult {
  readonly id: string;
  readonly kind: MutantKind;
  readonly source: string;
  readonly title: string;
  readonly family: MutantFamily;
  readonly expectedProperties: readonly string[];
  readonly status: MutantStatus;
  /** the property whose shrunk counterexample killed it */
  readonly property: string | null;
  readonly detail: string | null;
  /** killed by a property of its expected list (catalogue), null for operators */
  readonly asExpected: boolean | null;
  readonly suite: string | null;
  /** schedules (runs) tried until the failing one, over all suites before it */
  readonly runsToKill: number | null;
  /** search seconds until the failing run (earlier suites plus the failing one) */
  readonly secondsToKill: number | null;
  /** wall seconds of the whole properties process (start-up, search, shrinking, report) */
  readonly wallSeconds: number;
  readonly shrinks: number | null;
  /** shrunk counterexample: choices in the schedule, simulated steps when replayed */
  readonly choices: number | null;
  readonly steps: number | null;
  /** the counterexample, copied under the report directory, and its replay command */
  readonly counterexample: string | null;
  readonly replay: string | null;
  /** violations per property counted by the run (before shrinking) */
  readonly violations: ViolationCounts;
  /** runs failing each property in the no-bail sampling pass (null: not measured) */
  readonly matrix: MatrixCounts | null;
  readonly matrixRuns: number;
  /** runs searched and seconds spent when it survived */
  readonly runs: number | null;
  readonly error: string | null;
  readonly equivalentReason: string | null;
}
