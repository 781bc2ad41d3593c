/*
 * Re-plan (PROTOCOL.md, "Re-plan"): after a prefill layer's routing, residents the prompt
 * never routed give their place, budget neutral and victim first, to the prompt's
 * most-routed non-residents of the same layer and home device (with the whole prompt's
 * table, layer < 0: of the same home device), while the newcomer's count strictly exceeds
 * the victim's (an equal count would swap for nothing and thrash).
 *
 * Choices where the protocol is silent, made as a careful C tier would:
 *   - victims are residents (not queued, holding their tensors) with count 0, in
 *     layer-major order; newcomers are experts an upload could bring in (not resident,
 *     queued or planned, with RAM weights, no tensors held), most routed first, ties in
 *     layer-major order; the i-th newcomer of a device pairs with its i-th victim;
 *   - a pair starts like an LFRU swap (the victim stops being resident, the swap is
 *     enqueued, its eviction reported once the uploader frees it); when the ring is full
 *     the pair is kept pending (up to TT_REPLAN_PENDING, oldest first) and started by
 *     later calls and by the decode ticks (TT_REPLAN_PER_TICK each), after checking
 *     again that both still qualify;
 *     any other refusal drops the pair;
 *   - nothing blocks; a fill-once backend never re-plans.
 */
#include <stdlib.h>

#include "tt_state.h"

/* (a slot already in a pending pair is checked by the drain, not chosen again) */
static int victim_ok(const tt_slot *s) { return s->resident && !s->queued && tt_has_tensors(s); }

static int newcomer_ok(const tt_slot *s) {
  return !s->resident && !s->queued && !s->planned && s->ram != NULL && !tt_has_tensors(s);
}

/* Starts one pair (mx held): 1 started, 0 ring full (nothing changed), -1 refused. */
static int start_pair_locked(tt_tier *t, const tt_pair *p) {
  tt_gen *g = &t->g;
  tt_slot *v = tt_slot_at(g, p->vlayer, p->veid), *n = tt_slot_at(g, p->layer, p->eid);
  if (g->qn == g->cfg.ring_capacity) return 0;
  v->resident = 0;
  if (tt_enqueue_locked(t, p->layer, p->eid, n->ram, p->vlayer, p->veid, 0)) {
    if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_REPLAN_PAIR, p->layer, p->eid, p->vlayer, p->veid, 1);
    return 1;
  }
  v->resident = 1;
  return -1;
}

int tt_replan_drain_locked(tt_tier *t, int max) {
  tt_gen *g = &t->g;
  int started = 0, kept = 0;
  for (int i = 0; i < g->pend_n; i++) {
    tt_pair p = g->pending[i];
    tt_slot *v = tt_slot_at(g, p.vlayer, p.veid), *n = tt_slot_at(g, p.layer, p.eid);
    int rc = -1;
    v->in_replan = n->in_replan = 0;
    if (victim_ok(v) && newcomer_ok(n))
      rc = started < max && !g->stop ? start_pair_locked(t, &p) : 0;
    if (rc == 1) started++;
    if (rc == 0) {
      g->pending[kept++] = p; /* still waiting for ring space */
      v->in_replan = n->in_replan = 1;
    }
  }
  g->pend_n = kept;
  return started;
}

static _Thread_local const uint32_t *sort_counts;

static int more_routed_first(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  if (sort_counts[i] != sort_counts[j]) return sort_counts[i] > sort_counts[j] ? -1 : 1;
  return (i > j) - (i < j);
}

/* One device's pairs in the scope base..base+n-1 (mx held); returns the pairs planned. */
static int plan_device_locked(tt_tier *t, int base, int n, int dev, const uint32_t *counts, int max,
                              tt_pair *out, int cap, int planned) {
  tt_gen *g = &t->g;
  int nn = 0, nv = 0, E = g->cfg.experts;
  for (int j = 0; j < n; j++) {
    const tt_slot *s = &g->slots[base + j];
    if (tt_home(g, (base + j) % E) != dev || s->in_replan) continue;
    if (newcomer_ok(s)) g->order[nn++] = (uint32_t)j;
  }
  for (int j = 0; j < n; j++) {
    const tt_slot *s = &g->slots[base + j];
    if (tt_home(g, (base + j) % E) == dev && !s->in_replan && victim_ok(s) && counts[j] == 0)
      g->order[nn + nv++] = (uint32_t)j;
  }
  sort_counts = counts;
  qsort(g->order, (size_t)nn, sizeof *g->order, more_routed_first);
  int made = 0;
  for (int i = 0; i < nn && i < nv && planned + made < max; i++) {
    uint32_t nj = g->order[i], vj = g->order[nn + i];
    if (counts[nj] <= counts[vj]) break; /* strictly more routed, or no swap (the rest are fewer) */
    int ni = base + (int)nj, vi = base + (int)vj;
    tt_pair p = {ni / E, ni % E, vi / E, vi % E};
    int rc = g->stop ? -1 : start_pair_locked(t, &p);
    if (rc == 0 && g->pend_n < TT_REPLAN_PENDING) {
      g->pending[g->pend_n++] = p;
      g->slots[ni].in_replan = g->slots[vi].in_replan = 1;
      if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_REPLAN_PAIR, p.layer, p.eid, p.vlayer, p.veid, 0);
    }
    if (rc == 1 || (rc == 0 && g->slots[ni].in_replan)) {
      if (planned + made < cap) out[planned + made] = p;
      made++;
    }
  }
  return made;
}

static int replan_locked(tt_tier *t, int layer, const uint32_t *counts, int max, tt_pair *out,
                         int cap) {
  tt_gen *g = &t->g;
  if (!g->swaps || g->stop) return 0;
  tt_replan_drain_locked(t, max > 0 ? TT_REPLAN_PENDING : 0);
  int base = layer >= 0 ? layer * g->cfg.experts : 0;
  int n = layer >= 0 ? g->cfg.experts : g->cfg.layers * g->cfg.experts;
  int planned = 0;
  for (int dev = 0; dev < g->devices; dev++)
    planned += plan_device_locked(t, base, n, dev, counts, max, out, cap, planned);
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_REPLAN_DONE, layer, -1, -1, planned, g->pend_n);
  return planned;
}

int tt_replan(tt_tier *t, int layer, const uint32_t *counts, int max_swaps, tt_pair *out, int cap) {
  if (t == NULL || counts == NULL || max_swaps < 0 || cap < 0 || (cap > 0 && out == NULL)) {
    tt_set_error("tt_replan: needs the tier, the counts, max_swaps >= 0 and room for cap pairs");
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_REPLAN, layer, -1, max_swaps);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    if (layer >= t->g.cfg.layers) {
      tt_set_error("tt_replan: layer %d does not exist (layers 0..%d)", layer, t->g.cfg.layers - 1);
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      rc = replan_locked(t, layer, counts, max_swaps, out, cap);
      tt_unlock(t);
    }
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_REPLAN, rc);
  return rc;
}
