/*
 * Argument checks: every bad argument of every engine function gives the right status
 * and a message, changes nothing, and never crashes (also with err NULL or tiny).
 */
#include <math.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

#define H 8
#define F 16

static void create_args(void) {
  char err[ERR_CAP];
  tl_engine *eng = (tl_engine *)&err; /* must be reset to NULL on failure */
  int two[2] = {0, 1}, neg[1] = {-1}, dup[2] = {1, 1}, big[1] = {64};
  CHECK_CODE(tl_engine_create(two, 2, 0, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_create(NULL, 2, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK(eng == NULL);
  CHECK_CODE(tl_engine_create(two, 0, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_create(two, TL_MAX_DEVICES + 1, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_create(neg, 1, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_create(dup, 2, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_engine_create(big, 1, 0, &eng, err, sizeof err), TL_E_ARG);
  CHECK(eng == NULL);
  CHECK(tl_engine_create(NULL, 1, 0, &eng, NULL, 0) == TL_E_ARG); /* no buffer */
  char tiny[8];
  memset(tiny, 'x', sizeof tiny);
  CHECK(tl_engine_create(NULL, 1, 0, &eng, tiny, sizeof tiny) == TL_E_ARG);
  CHECK(tiny[7] == '\0' && strlen(tiny) == 7); /* truncated, terminated */
  CHECK(tl_abi_version() == TL_ABI_VERSION);
  CHECK(strcmp(tl_backend_name(), "cpu") == 0);
}

static void upload_args(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  if (eng == NULL) return;
  uint64_t c0, b0, c1, b1;
  fx_ledger(eng, &c0, &b0);
  unsigned char w[F * H] = {0};
  float s[F * H] = {0};
  tl_tensor *t = (tl_tensor *)&err;
  /* fmt 1: F x H int8, F scales */
  CHECK_CODE(tl_tensor_upload(NULL, 0, 1, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK(t == NULL);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H, s, F, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, -1, 1, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 2, 1, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 3, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 16, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, 0, H, 0, w, 0, s, 0, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, 0, 0, w, 0, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, TL_MAX_DIM + 1, 1, 0, w, 1, s, 1, &t, err, ERR_CAP),
             TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 2, F, 7, 0, w, F * 7 / 2, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* int4 needs even cols */
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 4, w, F * H, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* group must be 0 for per-row formats */
  CHECK_CODE(tl_tensor_upload(eng, 0, 4, F, H, 0, w, F * H / 2, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* group 0 for format 4 */
  CHECK_CODE(tl_tensor_upload(eng, 0, 4, F, H, 3, w, F * H / 2, s, F * 2, &t, err, ERR_CAP),
             TL_E_ARG); /* 3 does not divide 8 */
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H - 1, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* data_bytes */
  CHECK_CODE(tl_tensor_upload(eng, 0, 2, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* int4 packs two per byte */
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H, s, F + 1, &t, err, ERR_CAP),
             TL_E_ARG); /* nscales */
  CHECK_CODE(tl_tensor_upload(eng, 0, 4, F, H, 4, w, F * H / 2, s, F, &t, err, ERR_CAP),
             TL_E_ARG); /* format 4 needs rows * cols / group scales */
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, NULL, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H, NULL, F, &t, err, ERR_CAP), TL_E_ARG);
  s[3] = NAN;
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  s[3] = INFINITY;
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, F, H, 0, w, F * H, s, F, &t, err, ERR_CAP), TL_E_ARG);
  s[3] = 0.0f;
  CHECK(t == NULL);
  fx_ledger(eng, &c1, &b1);
  CHECK(c1 == c0 && b1 == b0); /* nothing was allocated by a refused upload */
  /* the good ones */
  CHECK_CODE(tl_tensor_upload(eng, 1, 4, F, H, 4, w, F * H / 2, s, F * 2, &t, err, ERR_CAP), TL_OK);
  CHECK_CODE(tl_tensor_free(eng, t, err, ERR_CAP), TL_OK);
  CHECK_CODE(tl_tensor_free(eng, t, err, ERR_CAP), TL_E_ARG); /* double free */
  CHECK_CODE(tl_tensor_free(eng, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_free(NULL, t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_engine_destroy(eng, err, ERR_CAP), TL_OK);
}

/* Fixture for the group checks: 2 devices, one expert on each. */
typedef struct grp {
  tl_engine *eng;
  tg_expert e;
  tl_tensor *t0[3], *t1[3];
  float x[2 * H], y[2 * H];
} grp;

static int grp_make(grp *g, int set_lut) {
  memset(g, 0, sizeof *g);
  uint64_t rng = 7;
  if (tg_expert_make(&g->e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return -1;
  if (set_lut) {
    g->eng = fx_engine(2, 0);
  } else {
    char err[ERR_CAP];
    int devs[2] = {0, 1};
    CHECK_CODE(tl_engine_create(devs, 2, 0, &g->eng, err, sizeof err), TL_OK);
  }
  if (g->eng == NULL) return -1;
  if (fx_upload(g->eng, 0, &g->e, g->t0) != 0 || fx_upload(g->eng, 1, &g->e, g->t1) != 0) return -1;
  tg_fill(&rng, g->x, 2 * H, -1.0f, 1.0f);
  return 0;
}

static void grp_free(grp *g) {
  char err[ERR_CAP];
  if (g->eng != NULL) CHECK_CODE(tl_engine_destroy(g->eng, err, sizeof err), TL_OK);
  tg_expert_free(&g->e);
}

static void issue_args(void) {
  char err[ERR_CAP];
  grp g;
  if (grp_make(&g, 0) != 0) {
    grp_free(&g);
    return;
  }
  tl_engine *eng = g.eng;
  tl_tensor **G = g.t0, **U = g.t0 + 1, **D = g.t0 + 2;
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_STATE); /* no LUT */
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  lut[5] = NAN;
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_engine_set_lut(eng, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_engine_set_lut(NULL, lut, err, ERR_CAP), TL_E_ARG);
  tg_lut(lut);
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, ERR_CAP), TL_OK);

  CHECK_CODE(tl_group_issue(NULL, 0, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 2, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 0, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, TL_MAX_GROUP_ROWS + 1, G, U, D, g.x, H, 0, err, ERR_CAP),
             TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, 0, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, TL_MAX_HIDDEN + 1, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, NULL, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, NULL, H, 0, err, ERR_CAP), TL_E_ARG);
  tl_tensor *null_t[1] = {NULL};
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, null_t, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, H * 2, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, D, U, G, g.x, H, 0, err, ERR_CAP), TL_E_ARG); /* swapped */
  CHECK_CODE(tl_group_issue(eng, 0, 1, g.t1, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG); /* dev 1 */
  g.x[3] = NAN;
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  g.x[3] = 0.5f;
  /* mixed formats in one row */
  unsigned char w4[F * H / 2] = {0};
  float s4[F] = {0};
  tl_tensor *up4 = NULL;
  CHECK_CODE(tl_tensor_upload(eng, 0, 2, F, H, 0, w4, sizeof w4, s4, F, &up4, err, ERR_CAP), TL_OK);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, &up4, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_tensor_free(eng, up4, err, ERR_CAP), TL_OK);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, &up4, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG); /* freed */
  /* a tensor of another engine */
  tl_engine *other = fx_engine(1, 0);
  tl_tensor *foreign[3] = {NULL, NULL, NULL};
  if (other != NULL && fx_upload(other, 0, &g.e, foreign) == 0) {
    CHECK_CODE(tl_group_issue(eng, 0, 1, foreign, U, D, g.x, H, 0, err, ERR_CAP), TL_E_ARG);
    CHECK_CODE(tl_tensor_free(eng, foreign[0], err, ERR_CAP), TL_E_ARG);
  }
  CHECK_CODE(tl_engine_destroy(other, err, ERR_CAP), TL_OK);

  /* the good one, then the state rules around it */
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_OK);
  CHECK_CODE(tl_group_issue(eng, 0, 1, G, U, D, g.x, H, 0, err, ERR_CAP), TL_E_STATE);
  CHECK_CODE(tl_tensor_free(eng, G[0], err, ERR_CAP), TL_E_STATE); /* in use */
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, ERR_CAP), TL_E_STATE);
  CHECK_CODE(tl_group_take(eng, 0, g.y, 2, H, err, ERR_CAP), TL_E_ARG); /* n differs */
  CHECK_CODE(tl_group_take(eng, 0, g.y, 1, H + 2, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_take(eng, 0, NULL, 1, H, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_take(eng, 5, g.y, 1, H, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_group_take(eng, 1, g.y, 1, H, err, ERR_CAP), TL_E_STATE); /* none on dev 1 */
  CHECK_CODE(tl_group_take(eng, 0, g.y, 1, H, err, ERR_CAP), TL_OK); /* still open */
  CHECK_CODE(tl_group_take(eng, 0, g.y, 1, H, err, ERR_CAP), TL_E_STATE);
  grp_free(&g);
}

static void query_args(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  if (eng == NULL) return;
  uint64_t f, t, c, b;
  int n = 0;
  CHECK_CODE(tl_mem_info(eng, 0, NULL, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_mem_info(eng, 0, &f, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_mem_info(eng, 2, &f, &t, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_mem_info(eng, 1, &f, &t, err, ERR_CAP), TL_OK);
  CHECK(t == 1ull << 30 && f == t); /* the CPU backend's default device: 1 GiB */
  CHECK_CODE(tl_ledger(eng, NULL, &b, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_ledger(eng, &c, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_device_count(eng, NULL, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_device_count(eng, &n, err, ERR_CAP), TL_OK);
  CHECK(n == 2);
  CHECK(tl_reclaims(eng) == 1 && tl_reclaims(NULL) == -1);
  CHECK_CODE(tl_fault_arm(eng, NULL, 0, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_fault_arm(eng, "bogus", 0, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_fault_arm(eng, "upload", 2, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_fault_arm(eng, "upload", 0, -1, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_fault_arm(NULL, "upload", 0, 0, err, ERR_CAP), TL_E_ARG);
  CHECK_CODE(tl_engine_destroy(eng, err, ERR_CAP), TL_OK);
}

static void expert_cpu_args(void) {
  char err[ERR_CAP];
  uint64_t rng = 3;
  tg_expert e;
  if (tg_expert_make(&e, &rng, TL_FMT_I4_GROUP, H, F, 4) != 0) return;
  float lut[TL_SILU_LUT_SIZE], x[H] = {0}, y[H];
  tg_lut(lut);
  void *const *w = e.w;
  float *const *s = e.s;
#define XCPU(fmt, h, f, g, lt, xx, yy) \
  tl_expert_cpu(fmt, h, f, g, w[0], s[0], w[1], s[1], w[2], s[2], lt, xx, yy, err, ERR_CAP)
  CHECK_CODE(XCPU(4, H, F, 4, lut, x, y), TL_OK);
  CHECK_CODE(XCPU(5, H, F, 4, lut, x, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, 0, F, 4, lut, x, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, H, TL_MAX_WIDTH + 2, 4, lut, x, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, H, F, 3, lut, x, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, 7, F, 4, lut, x, y), TL_E_ARG); /* odd hidden for int4 */
  CHECK_CODE(XCPU(4, H, F, 4, NULL, x, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, H, F, 4, lut, NULL, y), TL_E_ARG);
  CHECK_CODE(XCPU(4, H, F, 4, lut, x, NULL), TL_E_ARG);
  x[2] = INFINITY;
  CHECK_CODE(XCPU(4, H, F, 4, lut, x, y), TL_E_ARG);
  x[2] = 0.0f;
  e.s[2][1] = NAN;
  CHECK_CODE(XCPU(4, H, F, 4, lut, x, y), TL_E_ARG);
  CHECK_CODE(tl_expert_cpu(4, H, F, 4, NULL, s[0], w[1], s[1], w[2], s[2], lut, x, y, err, ERR_CAP),
             TL_E_ARG);
#undef XCPU
  tg_expert_free(&e);
}

void suite_args(void) {
  th_run("args: engine create", create_args);
  th_run("args: tensor upload and free", upload_args);
  th_run("args: group issue and take, state rules", issue_args);
  th_run("args: mem_info, ledger, device_count, reclaims, fault_arm", query_args);
  th_run("args: tl_expert_cpu", expert_cpu_args);
}
