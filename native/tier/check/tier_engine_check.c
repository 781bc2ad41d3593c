/*
 * The C tier on a real engine library: the engine scenario of tests/test_engine.c (a
 * warmstart of RAM copies, groups bit-identical to the CPU reference, a trunk GEMV
 * bit-identical to tl_dense_cpu, the engine's ledger back at its baseline) linked against
 * libtierlab_ctier_<backend>.so and libtierlab_<backend>.so, so it runs on the CPU, CUDA
 * and Vulkan backends alike. With --log FILE the tier writes its event log there as
 * NDJSON (a free run's log: real threads, no scheduler), for `npm run check-trace`.
 * Usage: tier_engine_check [DEVICES] [--log FILE]   (DEVICES 1 or 2; default 1).
 * Last line "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/harness.h"
#include "../tt_events.h"

void tier_engine_scenario(int ndev);
extern tt_log *tier_engine_log;

static int ndev = 1;

static void scenario(void) { tier_engine_scenario(ndev); }

int main(int argc, char **argv) {
  const char *log_path = NULL;
  int devices_given = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
      log_path = argv[++i];
    } else if (!devices_given && (atoi(argv[i]) == 1 || atoi(argv[i]) == 2)) {
      ndev = atoi(argv[i]);
      devices_given = 1;
    } else {
      fprintf(stderr, "tier_engine_check: usage: tier_engine_check [1|2] [--log FILE]\n");
      return 2;
    }
  }
  tt_ndjson_sink file;
  tt_log log;
  if (log_path != NULL) {
    if (tt_ndjson_sink_open(&file, log_path, 1u << 20) != 0) {
      fprintf(stderr, "tier_engine_check: --log %s: cannot be written\n", log_path);
      return 2;
    }
    tt_log_init(&log, tt_ndjson_sink_as_sink(&file));
    tier_engine_log = &log;
  }
  printf("backend %s, %d device(s)\n", tl_backend_name(), ndev);
  th_run("the C tier on the engine: warmstart, bit-identical groups and trunk, clean ledger",
         scenario);
  if (log_path != NULL && tt_ndjson_sink_close(&file) != 0) {
    fprintf(stderr, "tier_engine_check: --log %s: a write failed\n", log_path);
    return 2;
  }
  return th_summary() == 0 ? 0 : 1;
}
