/*
 * plan_fill and note_planned: the parallel warmstart (PROTOCOL.md; src/tier/plan.ts).
 *
 * plan_fill reserves budget for each expert that fits its home device, in heat order
 * (with a heat file: hottest first, then layer, then expert) or natural order, and marks
 * it planned, until every device is full (all experts cost the same, so the first one
 * that does not fit fills its device). Loader threads then hand each one over with
 * note_planned: null weights, or an enqueue that is refused, give the reservation back
 * and clear `planned` (#1331), so the expert can be reconsidered and no budget leaks.
 * With weights, note_planned waits for ring space like note_block.
 * The caller's array bounds the plan: pass layers x experts keys to plan everything.
 */
#include <stdlib.h>

#include "tt_state.h"

static _Thread_local const tt_slot *sort_slots;

/* heat descending, then layer-major index ascending: a total order, so the sort needs no
 * stability to give the TypeScript tier's stable order */
static int hotter_first(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  uint32_t hi = sort_slots[i].heat, hj = sort_slots[j].heat;
  if (hi != hj) return hi > hj ? -1 : 1;
  return (i > j) - (i < j);
}

static int plan_locked(tt_tier *t, tt_key *out, int cap) {
  tt_gen *g = &t->g;
  uint32_t n = (uint32_t)g->cfg.layers * (uint32_t)g->cfg.experts;
  for (uint32_t i = 0; i < n; i++) g->order[i] = i;
  if (g->cfg.heat_path != NULL) {
    sort_slots = g->slots;
    qsort(g->order, n, sizeof *g->order, hotter_first);
  }
  int full[TT_MAX_DEVICES] = {0}, devices_full = 0, count = 0;
  for (uint32_t k = 0; k < n; k++) {
    if (g->stop || devices_full == g->devices || count == cap) break;
    uint32_t i = g->order[k];
    int layer = (int)(i / (uint32_t)g->cfg.experts), eid = (int)(i % (uint32_t)g->cfg.experts);
    tt_slot *s = &g->slots[i];
    int dev = tt_home(g, eid);
    if (full[dev] || s->resident || s->queued || s->planned) continue;
    if (g->used[dev] + g->exp_bytes > g->budget[dev]) {
      full[dev] = 1;
      devices_full++;
      continue;
    }
    g->used[dev] += g->exp_bytes;
    s->planned = 1;
    out[count++] = (tt_key){layer, eid};
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_PLANNED, layer, eid, dev, count, 0);
  }
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_PLAN_DONE, -1, -1, -1, count, 0);
  return count;
}

int tt_plan_fill(tt_tier *t, tt_key *out, int cap) {
  if (t == NULL || cap < 0 || (cap > 0 && out == NULL)) {
    tt_set_error("tt_plan_fill: needs the tier and room for cap >= 0 keys");
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_PLAN_FILL, -1, -1, cap);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_lock(t);
    rc = plan_locked(t, out, cap);
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_PLAN_FILL, rc);
  return rc;
}

static int note_planned_locked(tt_tier *t, int layer, int eid, void *ram) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, layer, eid);
  int ok = 0;
  if (!s->planned) return 0;
  if (ram != NULL) {
    s->ram = ram;
    g->waiters++;
    while (g->qn == g->cfg.ring_capacity && !g->stop) tt_wait_take_for(t, layer, eid);
    ok = tt_enqueue_locked(t, layer, eid, ram, -1, -1, 1);
    tt_leave_wait_locked(t);
  }
  if (!ok) {
    s->planned = 0;
    g->used[tt_home(g, eid)] -= g->exp_bytes;
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_RESERVATION_BACK, layer, eid, tt_home(g, eid), 0, 0);
  }
  return ok;
}

int tt_note_planned(tt_tier *t, int layer, int eid, void *ram) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_NOTE_PLANNED, layer, eid, ram != NULL);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    if (!tt_key_ok(&t->g, layer, eid)) {
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      rc = note_planned_locked(t, layer, eid, ram);
      tt_unlock(t);
    }
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_NOTE_PLANNED, rc);
  return rc;
}

/* fill_wait: block until every upload enqueued so far is finished. Waits on `inflight`,
 * never on the ring count (#1360): the uploader frees the ring slot before it copies. */
int tt_fill_wait(tt_tier *t) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_FILL_WAIT, -1, -1, 0);
  int life, rc;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    tt_gen *g = &t->g;
    tt_lock(t);
    g->waiters++;
    while (g->inflight > 0 && !g->stop) tt_wait_take(t);
    rc = g->stop ? TT_FILL_STOPPED : TT_FILL_DONE;
    tt_leave_wait_locked(t);
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_FILL_DONE, -1, -1, -1, rc, 0);
    tt_unlock(t);
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  } else {
    /* refused at the door: off, whatever the state (PROTOCOL.md, "Lifecycle gate") */
    rc = TT_FILL_OFF;
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_FILL_WAIT, rc);
  return rc;
}
