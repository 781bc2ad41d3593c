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
  'warmstart-frees-live-copy':
    "the simulator's kill re-uploads, after a failed staging copy in a warmstart (ring of 1, a swap every tick), an expert from the RAM copy the warmstart freed while the tier still pointed at it; " +
    'the real runs arranged near it (a failed staging copy or upload in warmstart, then swaps; a warm heat file with swaps; also tried: ring 1 and a swap every tick) never stage from such a pointer in 32 tokens, so no staging copy reads a freed copy: no real run found yet that brings an expert back through the kept pointer',
};
