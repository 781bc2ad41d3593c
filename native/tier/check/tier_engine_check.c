/*
 * The C tier on a real engine library: the engine scenario of tests/test_engine.c (a
 * warmstart of RAM copies, groups bit-identical to the CPU reference, a trunk GEMV
 * bit-identical to tl_dense_cpu, the engine's ledger back at its baseline) linked against
 * libtierlab_ctier_<backend>.so and libtierlab_<backend>.so, so it runs on the CPU, CUDA
 * and Vulkan backends alike.
 * Usage: tier_engine_check [DEVICES]   (1 or 2; default 1). Last line "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../tests/harness.h"

void tier_engine_scenario(int ndev);

static int ndev = 1;

static void scenario(void) { tier_engine_scenario(ndev); }

int main(int argc, char **argv) {
  if (argc > 2 || (argc == 2 && (atoi(argv[1]) < 1 || atoi(argv[1]) > 2))) {
    fprintf(stderr, "tier_engine_check: DEVICES must be 1 or 2\n");
    return 2;
  }
  if (argc == 2) ndev = atoi(argv[1]);
  printf("backend %s, %d device(s)\n", tl_backend_name(), ndev);
  th_run("the C tier on the engine: warmstart, bit-identical groups and trunk, clean ledger",
         scenario);
  return th_summary() == 0 ? 0 : 1;
}
