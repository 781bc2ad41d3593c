/**
 * What a mutant is: one defect put back into a scratch copy of the sources.
 *
 * Two shapes of patch, one meaning (replace exact text in one file):
 *  - catalogue mutants use `find`/`replace`: `find` must occur exactly once in the file,
 *    so a refactor of the tier that moves or rewrites the line makes the mutant fail
 *    loudly instead of silently becoming a no-op;
 *  - operator mutants are generated from the current source on every run and carry the
 *    exact span they replace (`start`, `end`, with the text they expect there), since the
 *    text of one site (`yield BROADCAST_TAKE;`) is rarely unique in its file.
 * Paths are relative to the repository root, with forward slashes.
 */
import type { PropertyFamily, PropertyId } from '../../src/check/catalogue.js';
import type { StrategyName } from '../../properties/types.js';
import type { Suite } from '../../properties/arbitraries.js';

export interface FindPatch {
  readonly file: string;
  readonly find: string;
  readonly replace: string;
}

export interface SpanPatch {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  /** the text found at [start, end) when the mutant was generated */
  readonly expect: string;
  readonly replace: string;
}

export type Patch = FindPatch | SpanPatch;

export interface Mutant {
  /** catalogue: the DEFECTS.md id; operators: `op:NAME@FILE:LINE` */
  readonly id: string;
  readonly title: string;
  /** issue numbers and what happened, in the words of the defect catalogue */
  readonly history: string;
  /** the property family expected to kill it (src/check/catalogue.ts `family`) */
  readonly family: MutantFamily;
  /** property ids that may kill it; the first is the one the defect is written against */
  readonly expectedProperties: readonly PropertyId[];
  readonly patches: readonly Patch[];
}

/** A property family, or what kills the mutants no one family is written against: any
 *  property (generated operators), the native oracle, a regression replay's property. */
export type MutantFamily = PropertyFamily | 'any' | 'native' | 'regression';

export type MutantKind = 'catalogue' | 'operator';

/** A mutant and where it came from (the catalogue file, or the operator and site). */
export interface MutantEntry {
  readonly kind: MutantKind;
  readonly mutant: Mutant;
  /** catalogue file, or `file:line` of the operator site */
  readonly source: string;
  /** set when the mutant is equivalent by construction (not run unless asked): why */
  readonly equivalent?: string;
}

export function isFindPatch(p: Patch): p is FindPatch {
  return 'find' in p;
}

export interface RunSettings {
  /** the working tree (node_modules, report paths) */
  readonly root: string;
  /** where the sources are copied from: the run's snapshot (defaults to root) */
  readonly sourceDir?: string;
  /** where reports/mutants.* go; counterexamples land in OUT/mutants/ */
  readonly outDir: string;
  readonly seconds: number;
  readonly seed: number;
  /** passed through to the properties CLI when given */
  readonly strategy?: StrategyName;
  readonly runs?: number;
  readonly suite?: Suite;
  /** seconds of the no-bail sampling pass per killed mutant (0: none) */
  readonly matrixSeconds: number;
  readonly typecheck: boolean;
  readonly keep: boolean;
  /** appended to replay commands (`--at COMMIT` when the sources were a commit's) */
  readonly replaySuffix?: string;
}
