/*
 * The read-mostly entry points: is_resident, resident_count, stats, and release_ram (the
 * engine frees a RAM copy it lent: the tier must forget the pointer first, #1341).
 *
 * Each takes mx once. Refused by the gate (the tier is not live), they answer as a tier
 * that holds nothing: not resident, zero, and "keep your copy" for release_ram.
 */
#include <string.h>

#include "tt_state.h"

/* One locked read of (layer, eid): 1 resident, 0 not, TT_E_ARG. release: forget the RAM
 * pointer of a resident expert. */
static int slot_query(tt_tier *t, int fn, int layer, int eid, int release) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, fn, layer, eid, 0);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    if (!tt_key_ok(&t->g, layer, eid)) {
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      tt_slot *s = tt_slot_at(&t->g, layer, eid);
      rc = s->resident;
      if (release && rc) {
        s->ram = NULL;
        if (TT_LOGGING(t)) tt_ev(t, TT_EV_RAM_RELEASED, layer, eid, tt_home(&t->g, eid), 1, 0);
      }
      tt_unlock(t);
    }
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, fn, rc);
  return rc;
}

int tt_is_resident(tt_tier *t, int layer, int eid) {
  return slot_query(t, TT_FN_IS_RESIDENT, layer, eid, 0);
}

int tt_release_ram(tt_tier *t, int layer, int eid) {
  return slot_query(t, TT_FN_RELEASE_RAM, layer, eid, 1);
}

static int count_resident_locked(const tt_gen *g) {
  size_t n = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  int count = 0;
  for (size_t i = 0; i < n; i++) count += g->slots[i].resident;
  return count;
}

int tt_resident_count(tt_tier *t) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_RESIDENT_COUNT, -1, -1, 0);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_lock(t);
    rc = count_resident_locked(&t->g);
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_RESIDENT_COUNT, rc);
  return rc;
}

static void stats_locked(const tt_gen *g, tt_stats *out) {
  out->uploads = g->c.uploads;
  out->upload_failures = g->c.upload_failures;
  out->hits = g->c.hits;
  out->misses = g->c.misses;
  out->hits_since_mark = g->c.hits - g->hits_mark;
  out->misses_since_mark = g->c.misses - g->misses_mark;
  out->evictions_dropped = g->ev_dropped;
  out->replan_pending = g->pend_n;
  out->swaps = g->c.swaps;
  out->swaps_abandoned = g->c.swaps_abandoned;
  out->queue_full_skips = g->c.queue_full_skips;
  out->inflight = g->inflight;
  out->qn = g->qn;
  out->resident = count_resident_locked(g);
  out->tick = g->tick;
  out->exp_bytes = g->exp_bytes;
  memcpy(out->budget, g->budget, sizeof out->budget);
  memcpy(out->used, g->used, sizeof out->used);
}

int tt_stats_get(tt_tier *t, tt_stats *out) {
  if (t == NULL || out == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_STATS, -1, -1, 0);
  memset(out, 0, sizeof *out);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_lock(t);
    stats_locked(&t->g, out);
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
    rc = 1;
  }
  out->life = life;
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_STATS, rc);
  return rc;
}
