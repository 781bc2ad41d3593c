/*
 * Fault arming: the after-th next call of an operation on a device fails with
 * TL_E_FAULT, once; other devices and operations are unaffected; a refused call does
 * not consume the arm; a faulted issue opens nothing; a faulted take closes the group
 * and leaves y untouched.
 */
#include <math.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

#define H 16
#define F 32

static void fault_upload(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 21;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  tl_tensor *t[3] = {NULL}, *u[3] = {NULL};
  CHECK_CODE(tl_fault_arm(eng, "upload", 0, 1, err, sizeof err), TL_OK);
  /* a refused upload (bad dev... here bad nscales) is not counted */
  tl_tensor *bad = NULL;
  CHECK_CODE(
      tl_tensor_upload(eng, 0, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], 1, &bad, err, sizeof err),
      TL_E_ARG);
  CHECK_CODE(
      tl_tensor_upload(eng, 1, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], F, &u[0], err, sizeof err),
      TL_OK); /* other device: not counted */
  CHECK_CODE(
      tl_tensor_upload(eng, 0, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], F, &t[0], err, sizeof err),
      TL_OK); /* after = 1: this one passes */
  CHECK_CODE(
      tl_tensor_upload(eng, 0, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], F, &t[1], err, sizeof err),
      TL_E_FAULT);
  CHECK(t[1] == NULL);
  CHECK_CODE(
      tl_tensor_upload(eng, 0, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], F, &t[1], err, sizeof err),
      TL_OK); /* one-shot */
  uint64_t c, b;
  fx_ledger(eng, &c, &b);
  CHECK(c == 12 + 3); /* 6 internal buffers per device, 3 tensors */
  /* arming again replaces the pending arm */
  CHECK_CODE(tl_fault_arm(eng, "upload", 1, 5, err, sizeof err), TL_OK);
  CHECK_CODE(tl_fault_arm(eng, "upload", 1, 0, err, sizeof err), TL_OK);
  CHECK_CODE(
      tl_tensor_upload(eng, 1, 1, F, H, 0, e.w[0], e.wbytes[0], e.s[0], F, &t[2], err, sizeof err),
      TL_E_FAULT);
  fx_free3(eng, t);
  fx_free3(eng, u);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

static void fault_issue_take(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  uint64_t rng = 22;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_ROW, H, F, 0) != 0) return;
  tl_tensor *t[3];
  if (fx_upload(eng, 0, &e, t) != 0) return;
  float x[H], y[H], want[H];
  tg_fill(&rng, x, H, -2.0f, 2.0f);
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  CHECK_CODE(tg_expert_cpu(&e, lut, x, want, err, sizeof err), TL_OK);

  CHECK_CODE(tl_fault_arm(eng, "issue", 0, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 0, err, sizeof err), TL_E_FAULT);
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_E_STATE); /* nothing open */
  /* the faulted issue holds no tensor: it can be freed (then uploaded again) */
  CHECK_CODE(tl_tensor_free(eng, t[0], err, sizeof err), TL_OK);
  CHECK_CODE(tl_tensor_upload(eng, 0, e.fmt, F, H, 0, e.w[0], e.wbytes[0], e.s[0], e.nscales[0],
                              &t[0], err, sizeof err),
             TL_OK);

  CHECK_CODE(tl_fault_arm(eng, "take", 0, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 0, err, sizeof err), TL_OK);
  for (int i = 0; i < H; i++) y[i] = -7.0f;
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_E_FAULT);
  for (int i = 0; i < H; i++) CHECK(y[i] == -7.0f); /* untouched */
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_E_STATE); /* closed */
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_OK);
  CHECK(memcmp(y, want, sizeof y) == 0);
  fx_free3(eng, t);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

void suite_fault(void) {
  th_run("fault: upload after-th call, one-shot, per device, re-arm replaces", fault_upload);
  th_run("fault: issue opens nothing, take closes and leaves y untouched", fault_issue_take);
}
