/*
 * take (PROTOCOL.md, "take"; src/tier/group.ts): collect the groups of the last issue.
 *
 * Two phases: under the lock it claims the published groups; outside it collects each
 * device's outputs into the tier's output block and copies each row to its route
 * position; then, under the lock, it clears `issue_open` and broadcasts (a swap may be
 * waiting for the window to close). A failed collection leaves that device's outputs
 * untouched (they are lost for this token: the engine computes them on the CPU) and take
 * reports it; every device is still drained. A take refused by the gate (a teardown
 * began after this thread's issue) reports the groups its issue left as lost: the
 * teardown collects them itself (the gate keeps that flag: it outlives the generation).
 */
#include <string.h>

#include "tt_state.h"

typedef struct claim {
  tt_row rows[TT_MAX_DEVICES][TT_GROUP_ROWS];
  int n[TT_MAX_DEVICES];
} claim;

static void claim_locked(tt_tier *t, claim *c) {
  tt_gen *g = &t->g;
  int any = 0;
  for (int dev = 0; dev < g->devices; dev++) {
    c->n[dev] = g->ngroup[dev];
    memcpy(c->rows[dev], &g->groups[dev * TT_GROUP_ROWS], (size_t)c->n[dev] * sizeof(tt_row));
    g->ngroup[dev] = 0;
    any |= c->n[dev] > 0;
  }
  if (any) g->groups_busy = 1;
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_TAKE_CLAIMED, -1, -1, -1, any, 0);
}

/* 1 when every claimed group was collected; positions past k are not written (-1). */
static int collect_unlocked(tt_tier *t, const claim *c, float *y, int k) {
  tt_gen *g = &t->g;
  size_t hidden = (size_t)g->cfg.hidden;
  int ok = 1;
  for (int dev = 0; dev < g->devices; dev++) {
    if (c->n[dev] == 0) continue;
    float *out = g->yblock + (size_t)dev * TT_GROUP_ROWS * hidden;
    if (tt_be_take(t, dev, c->n[dev], out) != 0) {
      if (ok > 0) ok = 0;
      if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_TAKE_FAILED, dev, c->n[dev], 0);
      continue;
    }
    for (int r = 0; r < c->n[dev]; r++) {
      int pos = c->rows[dev][r].pos;
      if (pos >= k) {
        ok = -1;
        continue;
      }
      memcpy(y + (size_t)pos * hidden, out + (size_t)r * hidden, hidden * sizeof *y);
    }
  }
  return ok;
}

/* *drained: the groups were claimed and collected (even if a row could not be written). */
static int take_admitted(tt_tier *t, float *y, int k, int hidden, int *drained) {
  tt_gen *g = &t->g;
  if (hidden != g->cfg.hidden) {
    tt_set_error("tt_take: hidden %d, the tier's is %d", hidden, g->cfg.hidden);
    return TT_E_ARG;
  }
  *drained = 1;
  claim c;
  tt_lock(t);
  claim_locked(t, &c);
  tt_unlock(t);
  int collected = collect_unlocked(t, &c, y, k);
  tt_lock(t);
  g->groups_busy = 0;
  g->issue_open = 0;
  tt_broadcast_take(t);
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_TAKE_CLOSED, -1, -1, -1, collected, 0);
  tt_unlock(t);
  if (collected < 0) {
    tt_set_error("tt_take: a collected row's route position is past k = %d", k);
    return TT_E_ARG;
  }
  return collected;
}

int tt_take(tt_tier *t, float *y, int k, int hidden) {
  if (t == NULL || k < 0 || k > TT_MAX_ROUTE || (k > 0 && y == NULL)) {
    tt_set_error("tt_take: needs the tier and room for 0..%d outputs", TT_MAX_ROUTE);
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_TAKE, -1, -1, k);
  int life, rc, drained = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    rc = take_admitted(t, y, k, hidden, &drained);
    tt_gate_leave(t, TT_GATE_EXPERT, drained ? TT_GROUPS_CLEAR : TT_GROUPS_KEEP);
  } else {
    /* refused at the door: it does nothing and says so, a loss (PROTOCOL.md, "Lifecycle
     * gate"); the teardown collects (or collected) this caller's groups, if it had any */
    rc = 0;
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_TAKE, rc);
  return rc;
}
