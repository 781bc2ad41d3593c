/**
 * Which C tier counterexamples can become a standalone C regression test, and why the
 * others cannot: the test has only what C sees at the tier's boundary (the scheduler's
 * outcome, the fake backend's ledger, what the tier's calls answer), so its failure must be
 * one of those; and it carries its own, correct engine driver, so a defect of the
 * harness's driver (native/tier/harness/) is not the tier's to fail on.
 *
 * Invariant: every property listed here has a check in native/tier/export/tx_body.h that
 * names it in its failure line; a property not listed is refused with the reason, never
 * exported as a test that would pass on the defect.
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import type { Mutant } from '../../mutants/lib/types.js';

/** The properties the exported test checks by itself, and how it sees each. */
export const C_VISIBLE: Readonly<Partial<Record<PropertyId, string>>> = {
  'LIVE-DEADLOCK': "the scheduler's outcome: no thread can move",
  'LIVE-SHUTDOWN': "the scheduler's outcome: no thread can move once a shutdown began",
  'LIVE-STEPS': "the scheduler's outcome: the step bound",
  'SYNC-DISCIPLINE': "the scheduler's outcome: a misuse of a mutex or condition variable",
  'MEM-DEVICE': "the fake backend's ledger: a tensor freed twice, or under an open group, or read after its free",
  'MEM-HOST': "the fake backend's ledger: a staging copy or host array freed twice or read after its free",
  'MEM-RAM': "the fake backend's ledger: a staging copy of a RAM copy the engine freed",
  'MEM-UPLOAD-BYTES': "the fake backend's ledger: a staging copy of another expert's bytes",
  'POST-SHUTDOWN': "the fake backend's ledger: tensors, staging copies or host arrays alive after shutdown",
  'POST-FILL-WAIT': "the fake backend's staging copies when fill_wait returns",
  'PROG-FILL': "the fake backend's uploads when fill_wait returns, with nothing failing",
};

/** A mutant's patches touch the harness's engine driver, not the tier. */
export function isDriverDefect(m: Mutant): boolean {
  return m.patches.some((p) => p.file.startsWith('native/tier/harness/'));
}

/**
 * Why this counterexample cannot be exported (one line), or null when it can.
 * mutant: the catalogue's entry for the file's `mutant` (null: found on the tier itself).
 */
export function exportRefusal(property: PropertyId, mutant: Mutant | null): string | null {
  if (mutant !== null && isDriverDefect(mutant))
    return (
      `the defect ${mutant.id} is in the engine driver (native/tier/harness/), not in the tier: ` +
      'an exported test carries its own correct driver, so it cannot fail on it'
    );
  if (property.startsWith('DRV-'))
    return `${property} is a property of the engine driver, not of the tier: an exported test carries its own driver`;
  if (C_VISIBLE[property] === undefined)
    return (
      `${property} is judged by tierlab's reference and checkers (the tier's event log, the engine's outputs), ` +
      'not by anything C sees at the boundary; find a level-1 counterexample ' +
      `(npm run mutants -- --tier c --level 1${mutant !== null ? ` --mutant ${mutant.id}` : ''}) and export that`
    );
  return null;
}
