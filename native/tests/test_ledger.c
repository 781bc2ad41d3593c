/*
 * Ledger and capacity: every upload adds one entry and its footprint, every free takes
 * them away (leak accounting); a capped device refuses what does not fit with TL_E_OOM
 * and has room again after a free; mem_info follows the charge.
 */
#include "engine_fixture.h"
#include "harness.h"

static uint64_t expert_footprint(const tg_expert *e) {
  uint64_t total = 0;
  for (int p = 0; p < 3; p++) {
    total += tl_alloc_footprint(e->wbytes[p]) + tl_alloc_footprint(e->nscales[p] * 4);
  }
  return total;
}

static void ledger_counts(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 11;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_GROUP, 64, 128, 32) != 0) return;
  uint64_t c0, b0, c, b;
  fx_ledger(eng, &c0, &b0);
  CHECK(c0 == 12); /* group and dense buffers: 6 per simulated device, fixed from creation */
  tl_tensor *t[4][3];
  for (int i = 0; i < 4; i++) fx_upload(eng, i % 2, &e, t[i]);
  fx_ledger(eng, &c, &b);
  CHECK(c == c0 + 12);
  CHECK(b == b0 + 4 * expert_footprint(&e));
  uint64_t f, total;
  CHECK_CODE(tl_mem_info(eng, 1, &f, &total, err, sizeof err), TL_OK);
  CHECK(total - f == 2 * expert_footprint(&e));
  fx_free3(eng, t[1]);
  fx_free3(eng, t[2]);
  fx_ledger(eng, &c, &b);
  CHECK(c == c0 + 6 && b == b0 + 2 * expert_footprint(&e));
  fx_free3(eng, t[0]);
  fx_free3(eng, t[3]);
  fx_ledger(eng, &c, &b);
  CHECK(c == c0 && b == b0); /* back to the baseline: nothing leaked */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

static void capacity_oom(void) {
  char err[ERR_CAP];
  uint64_t rng = 12;
  tg_expert e;
  if (tg_expert_make(&e, &rng, TL_FMT_I8_ROW, 64, 64, 0) != 0) return;
  const uint64_t one = expert_footprint(&e);
  tl_engine *eng = fx_engine(2, 3 * one); /* room for exactly three experts */
  if (eng == NULL) return;
  tl_tensor *t[4][3] = {{NULL}};
  for (int i = 0; i < 3; i++) CHECK(fx_upload(eng, 0, &e, t[i]) == 0);
  uint64_t f, total;
  CHECK_CODE(tl_mem_info(eng, 0, &f, &total, err, sizeof err), TL_OK);
  CHECK(total == 3 * one && f == 0);
  CHECK_CODE(tl_tensor_upload(eng, 0, e.fmt, 64, 64, 0, e.w[0], e.wbytes[0], e.s[0], e.nscales[0],
                              &t[3][0], err, sizeof err),
             TL_E_OOM);
  CHECK(t[3][0] == NULL);
  CHECK(fx_upload(eng, 1, &e, t[3]) == 0); /* the other device has its own capacity */
  fx_free3(eng, t[1]);
  CHECK_CODE(tl_mem_info(eng, 0, &f, &total, err, sizeof err), TL_OK);
  CHECK(f == one);
  CHECK(fx_upload(eng, 0, &e, t[1]) == 0); /* room again */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK); /* releases the rest */
  tg_expert_free(&e);
}

void suite_ledger(void) {
  th_run("ledger: uploads and frees balance, baseline restored", ledger_counts);
  th_run("capacity: a full device answers TL_E_OOM, a free makes room", capacity_oom);
}
