/*
 * The tier's boundary as the harness crosses it: every entry point the driver calls,
 * wrapped in a `call` and a `ret` engine event (TH_EV_CALL, TH_EV_RET) with what crosses
 * the boundary: the arguments, the answer, plan_fill's keys, issue's mask, the positions
 * take wrote. These are the boundary's record at level 1, where the tier itself logs
 * nothing; nothing here reads the tier's state.
 *
 * take's output: every position is NaN before the call, so a position the tier wrote is
 * one it collected (th_calls_take reports them as bits beside take's answer).
 */
#include <math.h>
#include <string.h>

#include "th_internal.h"
#include "th_calls.h"

static void call(th_engine *e, int fn, int layer, int eid, int value) {
  th_log_engine(e->log, TH_EV_CALL, fn, layer, eid, value, 0, 0, 0);
}

static int ret(th_engine *e, int fn, int value) {
  th_log_engine(e->log, TH_EV_RET, fn, value, 0, 0, 0, 0, 0);
  return value;
}

int th_call_init(th_engine *e) {
  tt_config cfg;
  th_tier_config(e->sc, e->log->heat_path, &cfg);
  tt_init_result r;
  call(e, TT_FN_INIT, -1, -1, 0);
  int rc = tt_init(e->tier, &cfg, &r);
  if (rc == TT_INIT_ACTIVE) e->trunk_base = r.trunk_base;
  /* an init that stays off must say why: the engine prints it (words: state, has reason) */
  th_log_engine(e->log, TH_EV_RET, TT_FN_INIT, rc, r.reason[0] != '\0', 0, 0, 0, 0);
  return rc;
}

int th_call_note(th_engine *e, int fn, int layer, int eid, void *ram) {
  call(e, fn, layer, eid, ram != NULL);
  int rc = fn == TT_FN_NOTE    ? tt_note(e->tier, layer, eid, ram)
      : fn == TT_FN_NOTE_BLOCK ? tt_note_block(e->tier, layer, eid, ram)
                               : tt_note_planned(e->tier, layer, eid, ram);
  return ret(e, fn, rc);
}

int th_call_plan_fill(th_engine *e, tt_key *out, int cap) {
  call(e, TT_FN_PLAN_FILL, -1, -1, cap);
  int n = tt_plan_fill(e->tier, out, cap);
  ret(e, TT_FN_PLAN_FILL, n);
  for (int i = 0; i < n; i++)
    th_log_engine(e->log, TH_EV_RET_KEY, out[i].layer, out[i].eid, 0, 0, 0, 0, 0);
  return n;
}

int th_call_evicted_take(th_engine *e, int max) {
  tt_key out[TH_MAX_EVICTED_POLL];
  if (max > TH_MAX_EVICTED_POLL) max = TH_MAX_EVICTED_POLL;
  call(e, TT_FN_EVICTED_TAKE, -1, -1, max);
  int n = tt_evicted_take(e->tier, out, max);
  ret(e, TT_FN_EVICTED_TAKE, n);
  for (int i = 0; i < n; i++)
    th_log_engine(e->log, TH_EV_RET_KEY, out[i].layer, out[i].eid, 0, 0, 0, 0, 0);
  return n;
}

int th_call_simple(th_engine *e, int fn) {
  call(e, fn, -1, -1, 0);
  int rc = fn == TT_FN_FILL_WAIT ? tt_fill_wait(e->tier)
      : fn == TT_FN_SHUTDOWN     ? tt_shutdown(e->tier)
                                 : tt_resident_count(e->tier);
  return ret(e, fn, rc);
}

int th_call_release_ram(th_engine *e, int layer, int eid) {
  call(e, TT_FN_RELEASE_RAM, layer, eid, 0);
  return ret(e, TT_FN_RELEASE_RAM, tt_release_ram(e->tier, layer, eid));
}

static void bits(const uint8_t *set, int k, int32_t *lo, int32_t *hi) {
  uint64_t b = 0;
  for (int i = 0; i < k && i < 64; i++)
    if (set[i]) b |= 1ull << i;
  *lo = (int32_t)(uint32_t)(b & 0xffffffffu);
  *hi = (int32_t)(uint32_t)(b >> 32);
}

int th_call_issue(th_engine *e, int layer, const int *eids, int k, const float *x, uint8_t *mask) {
  call(e, TT_FN_ISSUE, layer, -1, k);
  int rc = tt_issue(e->tier, layer, eids, k, x, mask);
  int32_t lo, hi;
  bits(mask, k, &lo, &hi);
  th_log_engine(e->log, TH_EV_RET, TT_FN_ISSUE, rc, lo, hi, 0, 0, 0);
  return rc;
}

int th_call_take(th_engine *e, float *y, int k) {
  uint8_t wrote[TH_MAX_TOPK];
  for (int i = 0; i < k * TH_HIDDEN; i++) y[i] = NAN;
  call(e, TT_FN_TAKE, -1, -1, k);
  int rc = tt_take(e->tier, y, k, TH_HIDDEN);
  for (int i = 0; i < k; i++) wrote[i] = !isnan(y[i * TH_HIDDEN]);
  int32_t lo, hi;
  bits(wrote, k, &lo, &hi);
  th_log_engine(e->log, TH_EV_RET, TT_FN_TAKE, rc, lo, hi, 0, 0, 0);
  return rc;
}

int th_call_dense(th_engine *e, int index, const float *x) {
  float y[8];
  call(e, TT_FN_DENSE_MATMUL, -1, -1, index);
  return ret(e, TT_FN_DENSE_MATMUL, tt_dense_matmul(e->tier, e->trunk_base + index, x, y));
}
