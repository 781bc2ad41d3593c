/*
 * The dense trunk on the CPU backend and format 8's refusals: a device GEMV is
 * bit-identical to tl_dense_cpu, also while a group is open on the same device (and the
 * group's outputs stay the group's: the dense path has its own buffers); bad dense and
 * fp8 arguments are refused with a message; tl_device_bytes counts the footprints.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

typedef struct dense_mat {
  int rows, cols;
  int8_t *q;
  float *s;
  tl_tensor *t;
} dense_mat;

static int dense_make(tl_engine *eng, int dev, dense_mat *m, int rows, int cols, uint64_t *rng) {
  char err[ERR_CAP];
  float *w = malloc((size_t)rows * (size_t)cols * sizeof(float));
  *m = (dense_mat){.rows = rows,
                   .cols = cols,
                   .q = malloc((size_t)rows * (size_t)cols),
                   .s = malloc((size_t)rows * sizeof(float))};
  int ok = w != NULL && m->q != NULL && m->s != NULL;
  if (ok) {
    tg_fill(rng, w, (size_t)rows * (size_t)cols, -0.2f, 0.2f);
    CHECK_CODE(tl_dense_quantize(w, rows, cols, m->q, m->s, err, sizeof err), TL_OK);
    CHECK_CODE(
        tl_tensor_upload(eng, dev, TL_FMT_I8_ROW, rows, cols, 0, m->q, (size_t)rows * (size_t)cols,
                         m->s, (size_t)rows, &m->t, err, sizeof err),
        TL_OK);
    ok = m->t != NULL;
  }
  free(w);
  return ok ? 0 : -1;
}

static void dense_free(tl_engine *eng, dense_mat *m) {
  char err[ERR_CAP];
  if (m->t != NULL) CHECK_CODE(tl_tensor_free(eng, m->t, err, sizeof err), TL_OK);
  free(m->q);
  free(m->s);
  memset(m, 0, sizeof *m);
}

/* GEMVs on two devices, of trunk shapes (projections, router, lm_head), inside the
 * window of open groups on both: every output bit-equal to the host's. */
static void dense_matches_host(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  if (eng == NULL) return;
  uint64_t rng = 77;
  const int H = 64;
  const int shapes[3][2] = {{64, 64}, {8, 64}, {320, 64}};
  dense_mat m[2][3];
  memset(m, 0, sizeof m);
  tg_expert ex;
  tl_tensor *et[2][3] = {{NULL}};
  float lut[TL_SILU_LUT_SIZE], x[2 * H], gy[2 * H], gwant[H], xin[64], y[320], want[320];
  tg_lut(lut);
  int ok = tg_expert_make(&ex, &rng, TL_FMT_I8_ROW, H, 96, 0) == 0;
  for (int d = 0; d < 2 && ok; d++) {
    ok = fx_upload(eng, d, &ex, et[d]) == 0;
    for (int i = 0; i < 3 && ok; i++)
      ok = dense_make(eng, d, &m[d][i], shapes[i][0], shapes[i][1], &rng) == 0;
  }
  CHECK(ok);
  if (ok) {
    tg_fill(&rng, x, 2 * H, -2.0f, 2.0f);
    for (int d = 0; d < 2; d++) {
      CHECK_CODE(tl_group_issue(eng, d, 1, &et[d][0], &et[d][1], &et[d][2], x + d * H, H, 0, err,
                                sizeof err),
                 TL_OK);
    }
    int bad = 0;
    for (int round = 0; round < 4; round++) {
      for (int d = 0; d < 2; d++) {
        for (int i = 0; i < 3; i++) {
          tg_fill(&rng, xin, 64, -3.0f, 3.0f);
          CHECK_CODE(tl_dense_matvec(eng, d, m[d][i].t, xin, y, err, sizeof err), TL_OK);
          CHECK_CODE(tl_dense_cpu(m[d][i].q, m[d][i].s, m[d][i].rows, m[d][i].cols, xin, want, err,
                                  sizeof err),
                     TL_OK);
          if (memcmp(y, want, (size_t)m[d][i].rows * sizeof(float)) != 0) bad++;
        }
      }
    }
    CHECK(bad == 0);
    for (int d = 0; d < 2; d++) {
      CHECK_CODE(tl_group_take(eng, d, gy + d * H, 1, H, err, sizeof err), TL_OK);
      CHECK_CODE(tg_expert_cpu(&ex, lut, x + d * H, gwant, err, sizeof err), TL_OK);
      CHECK(memcmp(gy + d * H, gwant, sizeof gwant) == 0);
    }
  }
  for (int d = 0; d < 2; d++) {
    for (int i = 0; i < 3; i++) dense_free(eng, &m[d][i]);
    fx_free3(eng, et[d]);
  }
  tg_expert_free(&ex);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void dense_args(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  if (eng == NULL) return;
  uint64_t rng = 3;
  dense_mat m;
  float x[64], y[64];
  tg_fill(&rng, x, 64, -1.0f, 1.0f);
  if (dense_make(eng, 0, &m, 16, 64, &rng) != 0) return;
  CHECK_CODE(tl_dense_matvec(eng, 1, m.t, x, y, err, sizeof err), TL_E_ARG); /* other device */
  CHECK(strstr(err, "lives on device 0") != NULL);
  CHECK_CODE(tl_dense_matvec(eng, 2, m.t, x, y, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_dense_matvec(eng, 0, NULL, x, y, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_dense_matvec(eng, 0, m.t, NULL, y, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_dense_matvec(NULL, 0, m.t, x, y, err, sizeof err), TL_E_ARG);
  x[5] = 1.0f / 0.0f;
  CHECK_CODE(tl_dense_matvec(eng, 0, m.t, x, y, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "x[5] is not finite") != NULL);
  /* an expert tensor of another format is no dense matrix */
  tg_expert ex;
  tl_tensor *et[3] = {NULL};
  if (tg_expert_make(&ex, &rng, TL_FMT_I4_ROW, 64, 32, 0) == 0 && fx_upload(eng, 0, &ex, et) == 0) {
    CHECK_CODE(tl_dense_matvec(eng, 0, et[0], x, y, err, sizeof err), TL_E_ARG);
    CHECK(strstr(err, "dense tensors are format 1") != NULL);
    fx_free3(eng, et);
  }
  tg_expert_free(&ex);
  /* more output rows than the dense buffers hold */
  static int8_t tall[TL_MAX_DENSE_ROWS + 1];
  static float tall_s[TL_MAX_DENSE_ROWS + 1];
  for (int r = 0; r <= TL_MAX_DENSE_ROWS; r++) tall_s[r] = 1.0f;
  tl_tensor *t = NULL;
  CHECK_CODE(tl_tensor_upload(eng, 1, TL_FMT_I8_ROW, TL_MAX_DENSE_ROWS + 1, 1, 0, tall, sizeof tall,
                              tall_s, TL_MAX_DENSE_ROWS + 1, &t, err, sizeof err),
             TL_OK);
  static float ty[TL_MAX_DENSE_ROWS + 1];
  CHECK_CODE(tl_dense_matvec(eng, 1, t, x, ty, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "rows must be in 1..65536") != NULL);
  CHECK_CODE(tl_tensor_free(eng, t, err, sizeof err), TL_OK);
  dense_free(eng, &m);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

/* Format 8's bad input: a NaN encoding, a missing scale block, on every entry point. */
static void fp8_refusals(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  if (eng == NULL) return;
  uint64_t rng = 9;
  tg_expert ex;
  if (tg_expert_make(&ex, &rng, TL_FMT_FP8_BLOCK, 160, 200, 0) != 0) return;
  tl_tensor *t = NULL;
  CHECK(ex.nscales[0] == 2 * 2); /* gate [200][160]: 2 x 2 blocks */
  CHECK_CODE(tl_tensor_upload(eng, 0, TL_FMT_FP8_BLOCK, 200, 160, 0, ex.w[0], ex.wbytes[0], ex.s[0],
                              ex.nscales[0] - 1, &t, err, sizeof err),
             TL_E_ARG);
  CHECK(strstr(err, "nscales is 3") != NULL && strstr(err, "needs 4") != NULL);
  CHECK_CODE(tl_tensor_upload(eng, 0, TL_FMT_FP8_BLOCK, 200, 160, 16, ex.w[0], ex.wbytes[0],
                              ex.s[0], ex.nscales[0], &t, err, sizeof err),
             TL_E_ARG);
  ((uint8_t *)ex.w[0])[1234] = 0xff;
  CHECK_CODE(tl_tensor_upload(eng, 0, TL_FMT_FP8_BLOCK, 200, 160, 0, ex.w[0], ex.wbytes[0], ex.s[0],
                              ex.nscales[0], &t, err, sizeof err),
             TL_E_ARG);
  CHECK(strstr(err, "weight 1234 is the fp8 NaN encoding 0xff") != NULL);
  CHECK(t == NULL);
  float lut[TL_SILU_LUT_SIZE], x[160], y[160];
  tg_lut(lut);
  tg_fill(&rng, x, 160, -1.0f, 1.0f);
  CHECK_CODE(tg_expert_cpu(&ex, lut, x, y, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "gate weight 1234 is the fp8 NaN encoding") != NULL);
  tl_ram *ram = NULL;
  CHECK_CODE(tg_expert_ram(eng, &ex, &ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "part 0: weight 1234 is the fp8 NaN encoding") != NULL && ram == NULL);
  ((uint8_t *)ex.w[0])[1234] = 0x7e; /* 448: finite again */
  CHECK_CODE(tg_expert_ram(eng, &ex, &ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_OK);
  tg_expert_free(&ex);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void device_bytes(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  if (eng == NULL) return;
  uint64_t rng = 4, b0 = 1, b1 = 1;
  CHECK_CODE(tl_device_bytes(eng, 0, &b0, err, sizeof err), TL_OK);
  CHECK(b0 == 0);
  dense_mat m;
  if (dense_make(eng, 1, &m, 40, 64, &rng) != 0) return;
  CHECK_CODE(tl_device_bytes(eng, 1, &b1, err, sizeof err), TL_OK);
  CHECK(b1 == tl_alloc_footprint(40 * 64) + tl_alloc_footprint(40 * 4));
  dense_free(eng, &m);
  CHECK_CODE(tl_device_bytes(eng, 1, &b1, err, sizeof err), TL_OK);
  CHECK(b1 == 0);
  CHECK_CODE(tl_device_bytes(eng, 2, &b1, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_device_bytes(eng, 0, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

void suite_dense(void) {
  th_run("dense: device GEMV bit-equal to the host's, inside open groups' windows",
         dense_matches_host);
  th_run("dense: bad arguments", dense_args);
  th_run("fp8: NaN encodings and a missing scale block are refused everywhere", fp8_refusals);
  th_run("dense: tl_device_bytes counts the backend's tensor bytes", device_bytes);
}
