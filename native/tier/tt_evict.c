/*
 * The eviction ring and the stats mark (PROTOCOL.md, "Eviction ring", "Stats mark").
 *
 * An eviction is a swap's victim whose tensors the uploader freed (PROTOCOL.md: recorded
 * where the uploader takes them); the engine, which may have freed that expert's RAM
 * copy at warmstart, must rebuild it for the CPU path. tt_evicted_take reports each such
 * eviction once, oldest first. The ring holds the configured evict_capacity keys (at most
 * TT_EVICT_CAP): an eviction past that is counted (ev_dropped), never reported, and the
 * engine rebuilds lazily. A swap refused
 * (the victim resident again at once) or abandoned (the victim kept) evicts nothing.
 */
#include "tt_state.h"

void tt_evicted_push_locked(tt_tier *t, int layer, int eid) {
  tt_gen *g = &t->g;
  int cap = g->cfg.evict_capacity > 0 && g->cfg.evict_capacity < TT_EVICT_CAP
      ? g->cfg.evict_capacity
      : TT_EVICT_CAP;
  if (g->ev_n >= cap) {
    g->ev_dropped++;
    return;
  }
  g->evicted[(g->ev_head + g->ev_n) % TT_EVICT_CAP] = (tt_key){layer, eid};
  g->ev_n++;
}

int tt_evicted_take(tt_tier *t, tt_key *out, int max) {
  if (t == NULL || max < 0 || (max > 0 && out == NULL)) {
    tt_set_error("tt_evicted_take: needs the tier and room for max >= 0 keys");
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_EVICTED_TAKE, -1, -1, max);
  int life, n = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_gen *g = &t->g;
    tt_lock(t);
    for (; n < max && g->ev_n > 0; n++) {
      out[n] = g->evicted[g->ev_head];
      g->ev_head = (g->ev_head + 1) % TT_EVICT_CAP;
      g->ev_n--;
    }
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_EVICTED_TAKEN, -1, -1, -1, n, g->ev_n);
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_EVICTED_TAKE, n);
  return n;
}

int tt_stats_mark(tt_tier *t) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_STATS_MARK, -1, -1, 0);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_lock(t);
    t->g.hits_mark = t->g.c.hits;
    t->g.misses_mark = t->g.c.misses;
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
    rc = 1;
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_STATS_MARK, rc);
  return rc;
}
