/*
 * issue (PROTOCOL.md, "issue"; src/tier/group.ts): the decode thread's device groups.
 *
 * Under the lock: unless stopping, open the group window (`issue_open`), take each routed
 * expert that is resident (with its tensors) into its home device's group while that
 * group has fewer than TT_GROUP_ROWS rows, set its mask bit and count a hit, else a miss;
 * on layer 0 run the LFRU tick. The tick runs after the groups are built, so a victim may
 * be in a group being issued: that is why the uploader waits for `issue_open` to clear
 * before it frees a victim. Outside the lock, each device's input goes into that
 * device's own block of the input buffer (stride TT_GROUP_ROWS rows: #1339) and the group
 * is issued asynchronously; a device whose issue fails hands its experts back to the CPU
 * (their bits cleared). Then the issued groups are published under the lock for take.
 * One decode thread issues and takes (the blocks are its own outside the lock).
 */
#include <string.h>

#include "tt_state.h"

typedef struct build {
  tt_row rows[TT_MAX_DEVICES][TT_GROUP_ROWS];
  int n[TT_MAX_DEVICES];
} build;

/* Returns groups_busy: whether groups are being issued outside the lock. In the sync
 * mode, first waits until nothing is in flight (counted as a waiter: shutdown wakes it),
 * so residency is deterministic and a swap chosen at one tick has landed by the next. */
static int build_locked(tt_tier *t, int layer, const int *eids, int k, uint8_t *mask, build *b) {
  tt_gen *g = &t->g;
  if (g->cfg.sync_uploads) {
    g->waiters++;
    while (g->inflight > 0 && !g->stop) tt_wait_take(t);
    tt_leave_wait_locked(t);
  }
  if (!g->stop) {
    g->issue_open = 1;
    for (int i = 0; i < k; i++) {
      tt_slot *s = tt_slot_at(g, layer, eids[i]);
      int dev = tt_home(g, eids[i]);
      if (s->resident && tt_has_tensors(s) && b->n[dev] < TT_GROUP_ROWS) {
        tt_row *r = &b->rows[dev][b->n[dev]++];
        *r = (tt_row){layer, eids[i], i, {s->tensors[0], s->tensors[1], s->tensors[2]}};
        mask[i] = 1;
        g->c.hits++;
      } else {
        g->c.misses++;
      }
      if (TT_LOGGING(t)) tt_ev(t, TT_EV_ROUTED, layer, eids[i], dev, i, mask[i]);
    }
    int any = 0;
    for (int dev = 0; dev < g->devices; dev++) {
      any |= b->n[dev] > 0;
      if (TT_LOGGING(t) && b->n[dev] > 0) tt_ev(t, TT_EV_GROUP_BUILT, -1, -1, dev, b->n[dev], 0);
    }
    if (any) g->groups_busy = 1;
    if (layer == 0) tt_lfru_tick_locked(t);
  }
  return g->groups_busy;
}

/* Outside the lock: each device's input block, then its group. */
static void issue_unlocked(tt_tier *t, const float *x, uint8_t *mask, build *b) {
  tt_gen *g = &t->g;
  size_t hidden = (size_t)g->cfg.hidden;
  for (int dev = 0; dev < g->devices; dev++) {
    if (b->n[dev] == 0) continue;
    int row0 = dev * TT_GROUP_ROWS;
    float *block = g->xblock + (size_t)row0 * hidden;
    for (int r = 0; r < b->n[dev]; r++) memcpy(block + (size_t)r * hidden, x, hidden * sizeof *x);
    if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_WRITE_INPUT, dev, row0, b->n[dev]);
    if (tt_be_issue(t, dev, b->n[dev], b->rows[dev], block) != 0) {
      for (int r = 0; r < b->n[dev]; r++) mask[b->rows[dev][r].pos] = 0;
      if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_ISSUE_FAILED, dev, b->n[dev], 0);
      b->n[dev] = 0;
    }
  }
}

static void publish_locked(tt_tier *t, const build *b) {
  tt_gen *g = &t->g;
  for (int dev = 0; dev < g->devices; dev++) {
    g->ngroup[dev] = b->n[dev];
    memcpy(&g->groups[dev * TT_GROUP_ROWS], b->rows[dev], (size_t)b->n[dev] * sizeof(tt_row));
  }
  g->groups_busy = 0;
  /* no wakeup: the teardown waits for this caller at the gate (gcv), not on cv_take */
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_GROUPS_PUBLISHED, -1, -1, -1, 0, 0);
}

/* Whether some group was issued (a device whose issue failed has none left). */
static int issued_any(const tt_tier *t, const build *b) {
  for (int dev = 0; dev < t->g.devices; dev++)
    if (b->n[dev] > 0) return 1;
  return 0;
}

static int route_ok(const tt_gen *g, int layer, const int *eids, int k) {
  for (int i = 0; i < k; i++)
    if (!tt_key_ok(g, layer, eids[i])) return 0;
  return 1;
}

int tt_issue(tt_tier *t, int layer, const int *eids, int k, const float *x, uint8_t *mask) {
  if (t == NULL || k < 0 || k > TT_MAX_ROUTE ||
      (k > 0 && (eids == NULL || x == NULL || mask == NULL))) {
    tt_set_error("tt_issue: needs the tier, 0..%d routed experts, their input and a mask",
                 TT_MAX_ROUTE);
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_ISSUE, layer, -1, k);
  if (k > 0) memset(mask, 0, (size_t)k);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    build b;
    memset(b.n, 0, sizeof b.n);
    if (!route_ok(&t->g, layer, eids, k)) {
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      int busy = build_locked(t, layer, eids, k, mask, &b);
      tt_unlock(t);
      issue_unlocked(t, x, mask, &b);
      /* published only when some group was issued (PROTOCOL.md, "issue"): none issued,
       * nothing is open and mx is not taken again (groups_busy, a log flag since the
       * gate, is cleared by the next publish or take) */
      if (busy && issued_any(t, &b)) {
        tt_lock(t);
        publish_locked(t, &b);
        tt_unlock(t);
      }
      for (int i = 0; i < k; i++) rc += mask[i];
    }
    /* rc > 0: some group is open until this thread's take */
    tt_gate_leave(t, TT_GATE_EXPERT, rc > 0 ? TT_GROUPS_SET : TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_ISSUE, rc);
  return rc;
}
