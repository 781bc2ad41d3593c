/*
 * Destroy: with live tensors and an open group it releases everything (the sanitizer's
 * leak check proves it); afterwards every call on the stale handle answers TL_E_STATE
 * (or -1 for tl_reclaims) without touching freed memory; destroy NULL is fine.
 */
#include "engine_fixture.h"
#include "harness.h"

static void destroy_releases(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 31;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, 32, 48, 0) != 0) return;
  tl_tensor *t[5][3];
  for (int i = 0; i < 5; i++) fx_upload(eng, i % 2, &e, t[i]);
  float x[32] = {0.5f, -0.25f};
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0][0], &t[0][1], &t[0][2], x, 32, 0, err, sizeof err),
             TL_OK);
  /* never taken, never freed: destroy must wait for the group and release all */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

static void calls_after_destroy(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  if (eng == NULL) return;
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  uint64_t a, b;
  int n;
  float lut[TL_SILU_LUT_SIZE] = {0}, y[4];
  unsigned char w[4] = {0};
  float s[2] = {0};
  tl_tensor *t = NULL;
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_device_count(eng, &n, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_mem_info(eng, 0, &a, &b, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_ledger(eng, &a, &b, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_tensor_upload(eng, 0, 1, 2, 2, 0, w, 4, s, 2, &t, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_tensor_free(eng, t, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t, &t, &t, y, 2, 0, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_group_take(eng, 0, y, 1, 2, err, sizeof err), TL_E_STATE);
  CHECK_CODE(tl_fault_arm(eng, "take", 0, 0, err, sizeof err), TL_E_STATE);
  CHECK(tl_reclaims(eng) == -1);
  CHECK_CODE(tl_engine_destroy(NULL, err, sizeof err), TL_OK);
}

void suite_destroy(void) {
  th_run("destroy: live tensors and an open group are released", destroy_releases);
  th_run("destroy: every call on a stale handle is refused", calls_after_destroy);
}
