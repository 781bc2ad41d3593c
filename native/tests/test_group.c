/*
 * Groups on the CPU backend: 2 devices with 32 rows each, formats 1, 2, 4 and 8, both
 * groups in flight at once; every output row is bit-identical (memcmp) to tl_expert_cpu
 * on the same input. Rows of one group may have different widths and formats.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

#define ROWS TL_MAX_GROUP_ROWS
#define NDEV 2
#define NEXP 6 /* distinct experts per device; rows reuse them */

typedef struct dev_set {
  tg_expert e[NEXP];
  tl_tensor *t[NEXP][3];
} dev_set;

/* Expert i of a device for format fmt: widths vary so rows of a group differ. */
static int make_set(tl_engine *eng, int dev, dev_set *s, uint64_t *rng, int fmt, int H) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < NEXP; i++) {
    int F = 32 + 16 * i;
    if (tg_expert_make(&s->e[i], rng, fmt, H, F, 16) != 0) return -1;
    if (fx_upload(eng, dev, &s->e[i], s->t[i]) != 0) return -1;
  }
  return 0;
}

static void free_set(tl_engine *eng, dev_set *s) {
  for (int i = 0; i < NEXP; i++) {
    if (s->t[i][0] != NULL) fx_free3(eng, s->t[i]);
    tg_expert_free(&s->e[i]);
  }
}

static void run_format(int fmt) {
  char err[ERR_CAP];
  const int H = 64;
  tl_engine *eng = fx_engine(NDEV, 0);
  if (eng == NULL) return;
  uint64_t rng = 100 + (uint64_t)fmt;
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  dev_set sets[NDEV];
  memset(sets, 0, sizeof sets);
  float *x = malloc(sizeof(float) * NDEV * ROWS * H);
  float *y = malloc(sizeof(float) * NDEV * ROWS * H);
  float *want = malloc(sizeof(float) * ROWS * H);
  int ok = x != NULL && y != NULL && want != NULL;
  for (int d = 0; d < NDEV && ok; d++) ok = make_set(eng, d, &sets[d], &rng, fmt, H) == 0;
  CHECK(ok);
  if (ok) {
    tg_fill(&rng, x, (size_t)NDEV * ROWS * H, -3.0f, 3.0f);
    tl_tensor *g[NDEV][ROWS], *u[NDEV][ROWS], *dn[NDEV][ROWS];
    for (int d = 0; d < NDEV; d++) {
      for (int r = 0; r < ROWS; r++) {
        int i = (r * 5 + d) % NEXP;
        g[d][r] = sets[d].t[i][0];
        u[d][r] = sets[d].t[i][1];
        dn[d][r] = sets[d].t[i][2];
      }
    }
    for (int d = 0; d < NDEV; d++) { /* both devices in flight together */
      CHECK_CODE(tl_group_issue(eng, d, ROWS, g[d], u[d], dn[d], x + (size_t)d * ROWS * H, H, 0,
                                err, sizeof err),
                 TL_OK);
    }
    for (int d = NDEV - 1; d >= 0; d--) { /* taken in the other order */
      CHECK_CODE(tl_group_take(eng, d, y + (size_t)d * ROWS * H, ROWS, H, err, sizeof err), TL_OK);
    }
    for (int d = 0; d < NDEV; d++) {
      for (int r = 0; r < ROWS; r++) {
        int i = (r * 5 + d) % NEXP;
        size_t off = ((size_t)d * ROWS + (size_t)r) * H;
        CHECK_CODE(tg_expert_cpu(&sets[d].e[i], lut, x + off, want, err, sizeof err), TL_OK);
        CHECK(memcmp(y + off, want, sizeof(float) * H) == 0);
      }
    }
    /* a smaller group right after, on the same device */
    CHECK_CODE(tl_group_issue(eng, 1, 3, g[1], u[1], dn[1], x, H, 0, err, sizeof err), TL_OK);
    CHECK_CODE(tl_group_take(eng, 1, y, 3, H, err, sizeof err), TL_OK);
    CHECK_CODE(tg_expert_cpu(&sets[1].e[(2 * 5 + 1) % NEXP], lut, x + 2 * H, want, err, sizeof err),
               TL_OK);
    CHECK(memcmp(y + 2 * H, want, sizeof(float) * H) == 0);
  }
  for (int d = 0; d < NDEV; d++) free_set(eng, &sets[d]);
  uint64_t c, b;
  fx_ledger(eng, &c, &b);
  CHECK(c == 6 * NDEV); /* only the group and dense buffers are left */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  free(x);
  free(y);
  free(want);
}

static void group_fmt1(void) { run_format(TL_FMT_I8_ROW); }
static void group_fmt2(void) { run_format(TL_FMT_I4_ROW); }
static void group_fmt4(void) { run_format(TL_FMT_I4_GROUP); }
static void group_fmt8(void) { run_format(TL_FMT_FP8_BLOCK); }

void suite_group(void) {
  th_run("group: 2 devices x 32 rows, int8 per row, bit-equal to tl_expert_cpu", group_fmt1);
  th_run("group: 2 devices x 32 rows, int4 per row, bit-equal to tl_expert_cpu", group_fmt2);
  th_run("group: 2 devices x 32 rows, int4 grouped, bit-equal to tl_expert_cpu", group_fmt4);
  th_run("group: 2 devices x 32 rows, fp8 block scales, bit-equal to tl_expert_cpu", group_fmt8);
}
