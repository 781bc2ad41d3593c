/**
 * The suite aimed at each C tier mutant's defect (mutants/ctier/; the catalogue's family):
 * the scenarios a bounded kill of that mutant runs, in the tests (test/ctier/) and in the
 * benchmark (apps/cli/bench/ctier_bench.ts). A mutant not listed runs 'general'.
 */
import type { Suite } from '../../properties/arbitraries.js';

/** the suite aimed at each defect (the catalogue's family) */
export const CTIER_SUITE: Readonly<Record<string, Suite>> = {
  'abandon-frees-victim': 'shutdown',
  'budget-by-payload': 'general',
  'driver-already-as-fresh-start': 'lifecycle',
  'enqueue-after-stop': 'shutdown',
  'evicted-dropped-below-bound': 'replan',
  'evicted-twice': 'replan',
  'failed-upload-no-decrement': 'wide',
  'fill-wait-queue-empty': 'full-groups',
  'fill-wait-with-group-open': 'general',
  'heat-file-counts-unchecked': 'lifecycle',
  'heat-file-trailing-bytes-accepted': 'lifecycle',
  'issue-stride-overrun': 'wide',
  'note-planned-twice-refunds': 'lifecycle',
  'null-weights-offered': 'full-groups',
  'planned-null-keeps-reservation': 'wide',
  'reinit-in-teardown-window': 'gate',
  'shutdown-leaks-tensors': 'fill-once',
  'shutdown-no-wake': 'shutdown',
  'streaming-pointer-retained': 'streaming',
  'swaps-turned-off': 'shutdown',
  'swaps-without-reclaim': 'shutdown',
  'sync-waits-on-queue': 'replan',
  'take-failure-drops-experts': 'streaming',
  'trunk-not-gated': 'general',
  'trunk-worst-value-first': 'general',
  'unlocked-on-check': 'gate',
  'victim-freed-while-group-open': 'shutdown',
  'warmstart-frees-live-copy': 'shutdown',
};
