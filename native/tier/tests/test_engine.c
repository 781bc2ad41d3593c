/*
 * The C tier on the native engine's CPU backend, through the adapter (engine_backend.h):
 * a warmstart of real RAM copies (tl_ram), uploads from staging references, groups whose
 * outputs are bit-identical to the CPU reference of the same expert (MATH.md), a trunk
 * matrix placed by init and computed on its device bit-identical to tl_dense_cpu, and a
 * shutdown that leaves the engine's ledger at its baseline. The same scenario runs on the
 * CUDA and Vulkan libraries through the tier library linked with either
 * (tier/check/tier_engine_check.c, make tier-engine-check-<backend>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/engine_fixture.h"
#include "../../tests/harness.h"
#include "../engine_backend.h"

#define L 2
#define E 4
#define H 32
#define F 64
#define TRUNK_ROWS 16

typedef struct engine_world {
  tl_engine *eng;
  tg_expert ex[L][E];
  tl_ram *ram[L][E];
  float lut[TL_SILU_LUT_SIZE];
  int8_t q[TRUNK_ROWS * H];
  float scales[TRUNK_ROWS];
} engine_world;

static int build(engine_world *w, int ndev) {
  char err[ERR_CAP];
  uint64_t rng = 1234;
  memset(w, 0, sizeof *w);
  w->eng = fx_engine(ndev, 0);
  if (w->eng == NULL) return -1;
  tg_lut(w->lut);
  for (int l = 0; l < L; l++)
    for (int e = 0; e < E; e++) {
      if (tg_expert_make(&w->ex[l][e], &rng, TL_FMT_I4_ROW, H, F, 0) != 0) return -1;
      CHECK_CODE(tg_expert_ram(w->eng, &w->ex[l][e], &w->ram[l][e], err, sizeof err), TL_OK);
    }
  float dense[TRUNK_ROWS * H];
  tg_fill(&rng, dense, TRUNK_ROWS * H, -1.0f, 1.0f);
  CHECK_CODE(tl_dense_quantize(dense, TRUNK_ROWS, H, w->q, w->scales, err, sizeof err), TL_OK);
  return 0;
}

static void config(const engine_world *w, int ndev, tt_config *cfg, tt_trunk_offer *offer) {
  tt_config_defaults(cfg);
  cfg->layers = L;
  cfg->experts = E;
  cfg->topk = 2;
  cfg->hidden = H;
  cfg->format = TL_FMT_I4_ROW;
  cfg->ram_capacity = E;
  for (int p = 0; p < 3; p++) {
    cfg->weight_bytes[p] = w->ex[0][0].wbytes[p];
    cfg->scale_bytes[p] = 4 * w->ex[0][0].nscales[p];
  }
  uint64_t exp = tt_expert_bytes(cfg);
  *offer = (tt_trunk_offer){-1, TRUNK_ROWS * H, 4 * TRUNK_ROWS, TRUNK_ROWS, H, w->q, w->scales};
  /* five experts in all, so both layers have residents: device 0 holds the trunk too */
  cfg->budget_bytes[0] = (ndev == 2 ? 3 : 5) * exp + tt_trunk_charge(offer);
  cfg->budget_bytes[1] = 2 * exp;
  cfg->trunk = offer;
  cfg->ntrunk = 1;
}

static void destroy(engine_world *w) {
  char err[ERR_CAP];
  for (int l = 0; l < L; l++)
    for (int e = 0; e < E; e++) {
      if (w->ram[l][e] != NULL) tl_ram_free(w->eng, w->ram[l][e], err, sizeof err);
      tg_expert_free(&w->ex[l][e]);
    }
  CHECK_CODE(tl_engine_destroy(w->eng, err, sizeof err), TL_OK);
}

/* Each layer routes all four experts: resident ones come back bit-identical. */
static void decode_bit_identical(engine_world *w, tt_tier *tier) {
  char err[ERR_CAP];
  float x[H], y[E * H], want[H];
  uint64_t rng = 99;
  for (int l = 0; l < L; l++) {
    int route[E] = {3, 0, 2, 1};
    uint8_t mask[E];
    tg_fill(&rng, x, H, -1.0f, 1.0f);
    int on_device = tt_issue(tier, l, route, E, x, mask);
    CHECK(on_device >= 1);
    CHECK(tt_take(tier, y, E, H) == 1);
    for (int i = 0; i < E; i++) {
      if (!mask[i]) continue;
      CHECK_CODE(tg_expert_cpu(&w->ex[l][route[i]], w->lut, x, want, err, sizeof err), TL_OK);
      CHECK(memcmp(y + i * H, want, sizeof want) == 0);
    }
  }
}

/* On a backend that reclaims: L1E2 made hot, 16 layer-0 ticks whose groups read L0E0, the
 * coldest resident of device 0: the swap frees L0E0 only after its group is taken (the
 * engine refuses a free under an open group, which the adapter would count), and L1E2
 * then computes bit-identical on the device. */
static void lfru_swap_on_the_engine(engine_world *w, tt_tier *tier) {
  char err[ERR_CAP];
  float x[H], y[E * H], want[H];
  uint64_t rng = 7;
  uint8_t mask[E];
  int route[E] = {0, 1, 2, 3};
  for (int i = 0; i < 30; i++) tt_note(tier, 1, 2, w->ram[1][2]);
  tt_stats s;
  tt_stats_get(tier, &s);
  for (uint64_t t = s.tick; t < 16; t++) {
    tg_fill(&rng, x, H, -1.0f, 1.0f);
    CHECK(tt_issue(tier, 0, route, E, x, mask) >= 1 && mask[0] == 1); /* L0E0 in every group */
    CHECK(tt_take(tier, y, E, H) == 1);
  }
  CHECK(tt_fill_wait(tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(tier, 1, 2) == 1 && tt_is_resident(tier, 0, 0) == 0);
  int hot[1] = {2};
  tg_fill(&rng, x, H, -1.0f, 1.0f);
  CHECK(tt_issue(tier, 1, hot, 1, x, mask) == 1 && tt_take(tier, y, 1, H) == 1);
  CHECK_CODE(tg_expert_cpu(&w->ex[1][2], w->lut, x, want, err, sizeof err), TL_OK);
  CHECK(memcmp(y, want, sizeof want) == 0);
}

/* The log the scenario's tier writes (NULL: none); the engine check sets it for --log. */
tt_log *tier_engine_log = NULL;

/* The scenario on an engine over devices 0..ndev-1 (1 or 2). */
void tier_engine_scenario(int ndev) {
  char err[ERR_CAP];
  engine_world *w = calloc(1, sizeof *w);
  if (w == NULL || build(w, ndev) != 0) {
    CHECK(!"the engine world could not be built");
    free(w);
    return;
  }
  uint64_t count0, bytes0;
  fx_ledger(w->eng, &count0, &bytes0);
  tt_engine_backend eb;
  tt_backend be;
  CHECK(tt_engine_backend_init(&eb, w->eng, NULL, &be) == 0 && be.devices == ndev);
  tt_tier *tier = tt_create(&be, tier_engine_log);
  tt_config cfg;
  tt_trunk_offer offer;
  config(w, ndev, &cfg, &offer);
  tt_init_result res;
  CHECK(tt_init(tier, &cfg, &res) == TT_INIT_ACTIVE && res.trunk_base == 0);
  tt_key keys[L * E];
  int n = tt_plan_fill(tier, keys, L * E);
  CHECK(n == 5);
  for (int i = 0; i < n; i++)
    CHECK(tt_note_planned(tier, keys[i].layer, keys[i].eid, w->ram[keys[i].layer][keys[i].eid]) ==
          1);
  CHECK(tt_fill_wait(tier) == TT_FILL_DONE);
  CHECK(tt_resident_count(tier) == n);
  /* the engine frees the RAM copies of residents, as the warmstart does */
  for (int i = 0; i < n; i++)
    if (tt_release_ram(tier, keys[i].layer, keys[i].eid) == 1) {
      CHECK_CODE(tl_ram_free(w->eng, w->ram[keys[i].layer][keys[i].eid], err, sizeof err), TL_OK);
      w->ram[keys[i].layer][keys[i].eid] = NULL;
    }
  decode_bit_identical(w, tier);
  if (be.reclaims) lfru_swap_on_the_engine(w, tier);
  float x[H], y[TRUNK_ROWS], want[TRUNK_ROWS];
  for (int h = 0; h < H; h++) x[h] = (float)h / 8.0f - 2.0f;
  CHECK(tt_dense_matmul(tier, res.trunk_base, x, y) == 1);
  CHECK_CODE(tl_dense_cpu(w->q, w->scales, TRUNK_ROWS, H, x, want, err, sizeof err), TL_OK);
  CHECK(memcmp(y, want, sizeof want) == 0);
  CHECK(tt_shutdown(tier) == TT_SHUTDOWN_DONE);
  uint64_t count1, bytes1;
  fx_ledger(w->eng, &count1, &bytes1);
  CHECK(count1 == count0 && bytes1 == bytes0);
  if (atomic_load(&eb.failures) != 0) fprintf(stderr, "  engine: %s\n", eb.first_failure);
  CHECK(atomic_load(&eb.failures) == 0);
  tt_destroy(tier);
  destroy(w);
  free(w);
}

static void tier_on_the_cpu_engine(void) { tier_engine_scenario(2); }

void suite_tier_engine(void) {
  th_run("tier on the CPU engine: warmstart, bit-identical groups and trunk, clean ledger",
         tier_on_the_cpu_engine);
}
