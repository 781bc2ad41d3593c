/**
 * Catalogue mutants the real oracle does not kill, each with the reason: the situation
 * its defect needs is one no real run has been arranged to reach (a schedule or an
 * allocation failure only the simulator can force), or the real world does not model
 * what goes wrong. `npm run oracle-mutants` shows the reason in the kill table for a
 * survivor listed here, and fails on a survivor that is not; a listed mutant that is
 * killed is reported as stale.
 */
export const ORACLE_UNREACHABLE: Readonly<Record<string, string>> = {
  'swaps-without-reclaim':
    'equivalent on the CPU backend: it reclaims, so `o.wantSwaps && backend.reclaims` is `o.wantSwaps` there; on a fill-once backend the real oracle kills it ' +
    "(`npm run oracle-mutants -- --backend vulkan --devices 0 --mutant swaps-without-reclaim`: VARIANT-FILL-ONCE in 'half, swaps' on lavapipe)",
};
