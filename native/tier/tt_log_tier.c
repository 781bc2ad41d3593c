/*
 * The tier's event sites: each builds one tt_event with the protocol variables the
 * emitter's lock guards, and hands it to the log. Callers test TT_LOGGING(t) first, so
 * a tier without a log builds nothing.
 * tt_ev and tt_ev_swap run with mx held, or inside an exclusive section (the snapshot
 * reads tt_gen); tt_ev_gate with gmx held; tt_ev_trunk with tmx held; tt_ev_out,
 * tt_ev_call and tt_ev_ret with no lock (they read nothing shared).
 */
#include "tt_state.h"

static uint32_t slot_flags(const tt_slot *s) {
  return (s->resident ? TT_F_RESIDENT : 0u) | (s->queued ? TT_F_QUEUED : 0u) |
      (s->planned ? TT_F_PLANNED : 0u) | (tt_has_tensors(s) ? TT_F_TENSORS : 0u) |
      (s->ram != NULL ? TT_F_RAM : 0u);
}

static void snapshot(tt_tier *t, tt_event *ev) {
  const tt_gen *g = &t->g;
  ev->sec = g->sec;
  ev->inflight = g->inflight;
  ev->qn = g->qn;
  ev->waiters = g->waiters;
  ev->tick = g->tick;
  ev->flags = (g->stop ? TT_F_STOP : 0u) | (g->issue_open ? TT_F_ISSUE_OPEN : 0u) |
      (g->groups_busy ? TT_F_GROUPS_BUSY : 0u);
  if (ev->dev >= 0 && ev->dev < TT_MAX_DEVICES) {
    ev->used = (int64_t)g->used[ev->dev];
    ev->budget = (int64_t)g->budget[ev->dev];
  }
  if (ev->layer >= 0 && ev->eid >= 0 && g->slots != NULL) {
    const tt_slot *s = tt_slot_at(&t->g, ev->layer, ev->eid);
    ev->heat = s->heat;
    ev->flags |= slot_flags(s);
  }
  if (ev->vlayer >= 0 && ev->veid >= 0 && g->slots != NULL)
    ev->vflags = slot_flags(tt_slot_at(&t->g, ev->vlayer, ev->veid));
}

void tt_ev(tt_tier *t, int kind, int layer, int eid, int dev, int64_t value, int64_t value2) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_TIER, kind, t->in_x ? TT_LK_X : TT_LK_MX);
  ev.layer = layer;
  ev.eid = eid;
  ev.dev = dev;
  ev.value = value;
  ev.value2 = value2;
  snapshot(t, &ev);
  tt_log_emit(t->log, &ev);
}

void tt_ev_swap(tt_tier *t, int kind, int layer, int eid, int vlayer, int veid, int64_t value) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_TIER, kind, t->in_x ? TT_LK_X : TT_LK_MX);
  ev.layer = layer;
  ev.eid = eid;
  ev.dev = tt_home(&t->g, eid);
  ev.vlayer = vlayer;
  ev.veid = veid;
  ev.value = value;
  snapshot(t, &ev);
  tt_log_emit(t->log, &ev);
}

void tt_ev_out(tt_tier *t, int src, int kind, int dev, int64_t value, int64_t value2) {
  tt_event ev;
  tt_event_clear(&ev, src, kind, TT_LK_NONE);
  ev.dev = dev;
  ev.value = value;
  ev.value2 = value2;
  tt_log_emit(t->log, &ev);
}

void tt_ev_call(tt_tier *t, int fn, int layer, int eid, int64_t value) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_TIER, TT_EV_CALL, TT_LK_NONE);
  ev.fn = fn;
  ev.layer = layer;
  ev.eid = eid;
  ev.value = value;
  tt_log_emit(t->log, &ev);
}

void tt_ev_ret(tt_tier *t, int fn, int64_t value) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_TIER, TT_EV_RET, TT_LK_NONE);
  ev.fn = fn;
  ev.value = value;
  tt_log_emit(t->log, &ev);
}

void tt_ev_gate(tt_tier *t, int kind, int64_t value, int64_t value2) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_GATE, kind, TT_LK_GMX);
  ev.value = value;
  ev.value2 = value2;
  ev.life = t->gate.life;
  ev.live = t->gate.live;
  ev.want_x = t->gate.want_x;
  ev.x = t->gate.x;
  tt_log_emit(t->log, &ev);
}

void tt_ev_trunk(tt_tier *t, int kind, int id, int dev, int64_t value) {
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_TRUNK, kind, TT_LK_TMX);
  ev.dev = dev;
  ev.value = id;
  ev.value2 = value;
  tt_log_emit(t->log, &ev);
}
