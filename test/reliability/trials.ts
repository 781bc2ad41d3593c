/**
 * Every trial of the reliability review (2026-12-01), in its order: properties flags (A),
 * scenario JSON (B), counterexample files (C), mutants (D), bench (E), oracle flags (F),
 * model containers (G), native libraries (H), environment variables (I), faults (J) and
 * the verification gap (K); the second round's (issue 32): what tierlab is handed (L1, L4,
 * L5, L9), interruptions of every command with scratch folders (L3), and the machine
 * under it: full folders (L2), TMPDIR a file (L6), garbage variables (L7), --jobs (L8). `npm run reliability` runs them all and writes the table;
 * `npm test` runs the ones marked `ci` (at least one of every class of failure).
 */
import { FAULT_TRIALS } from './trials_faults.js';
import { MACHINE_TRIALS } from './trials_machine.js';
import { INPUT_TRIALS } from './trials_inputs.js';
import { SIGNAL_TRIALS } from './trials_signals.js';
import { BENCH_TRIALS, GAP_TRIALS, MUTANT_TRIALS } from './trials_mutants.js';
import {
  ENVIRONMENT_TRIALS,
  FIXTURE_TRIALS,
  FLAG_TRIALS as ORACLE_FLAG_TRIALS,
  LIBRARY_TRIALS,
} from './trials_oracle.js';
import { FLAG_TRIALS, REPLAY_TRIALS, SCENARIO_TRIALS } from './trials_properties.js';
import type { Trial } from './tools.js';

const byId = (a: Trial, b: Trial): number => a.id.localeCompare(b.id, 'en', { numeric: true });

export const TRIALS: readonly Trial[] = [
  ...FLAG_TRIALS,
  ...[...SCENARIO_TRIALS].sort(byId),
  ...REPLAY_TRIALS,
  ...MUTANT_TRIALS,
  ...BENCH_TRIALS,
  ...ORACLE_FLAG_TRIALS,
  ...FIXTURE_TRIALS,
  ...LIBRARY_TRIALS,
  ...ENVIRONMENT_TRIALS,
  ...FAULT_TRIALS,
  ...GAP_TRIALS,
  ...INPUT_TRIALS,
  ...SIGNAL_TRIALS,
  ...MACHINE_TRIALS,
];
