/*
 * note and note_block (PROTOCOL.md; src/tier/note.ts): the decode path's heat count and
 * promotion, and the warmstart's blocking variant.
 *
 * note never blocks: heat++, remember the RAM weights, try a plain enqueue. note_block
 * waits on cv_take while the ring is full and not stopping, counted in `waiters` (the
 * log's; the teardown waits for woken callers at the gate, where each holds a slot). In streaming
 * mode the engine's RAM slot is recycled right after the call, so the tier copies during the call
 * and keeps no pointer: promotion happens here and now (room on the home device, or a
 * budget-neutral swap against the coldest resident when the admission rule agrees).
 */
#include "tt_state.h"

/* The last thing a waiting call does before it unlocks. No wakeup: the teardown waits
 * for it at the gate (its gate slot), not on cv_take; `waiters` is kept for the log. */
void tt_leave_wait_locked(tt_tier *t) { t->g.waiters--; }

/* The coldest resident not queued on dev, first in layer-major order among equals. */
static tt_slot *coldest(tt_gen *g, int dev, int *cl, int *ce) {
  tt_slot *cold = NULL;
  for (int l = 0; l < g->cfg.layers; l++)
    for (int e = dev; e < g->cfg.experts; e += g->devices) {
      tt_slot *s = tt_slot_at(g, l, e);
      if (s->resident && !s->queued && (cold == NULL || s->heat < cold->heat)) {
        cold = s;
        *cl = l;
        *ce = e;
      }
    }
  return cold;
}

/* Streaming promotion (mx held): copy now or never; the pointer dies with the call. */
static int promote_streaming_locked(tt_tier *t, int layer, int eid, void *ram) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, layer, eid);
  s->ram = NULL;
  if (ram == NULL || s->resident || s->queued || tt_has_tensors(s)) return 0;
  int dev = tt_home(g, eid);
  if (g->used[dev] + g->exp_bytes <= g->budget[dev])
    return tt_enqueue_locked(t, layer, eid, ram, -1, -1, 0);
  if (!g->swaps) return 0;
  int cl = -1, ce = -1;
  tt_slot *cold = coldest(g, dev, &cl, &ce);
  if (cold == NULL || !tt_admits(s->heat, cold->heat)) return 0;
  cold->resident = 0;
  if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_SWAP_CHOSEN, layer, eid, cl, ce, 1);
  int ok = tt_enqueue_locked(t, layer, eid, ram, cl, ce, 0);
  if (!ok) {
    cold->resident = 1;
    if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_SWAP_UNDONE, layer, eid, cl, ce, 1);
  }
  return ok;
}

static int note_locked(tt_tier *t, int layer, int eid, void *ram) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, layer, eid);
  tt_heat_up(s);
  int ok;
  if (g->cfg.streaming) {
    ok = promote_streaming_locked(t, layer, eid, ram);
  } else {
    s->ram = ram;
    ok = tt_enqueue_locked(t, layer, eid, ram, -1, -1, 0);
  }
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_NOTED, layer, eid, tt_home(g, eid), ok, 0);
  return ok;
}

static int note_block_locked(tt_tier *t, int layer, int eid, void *ram) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, layer, eid);
  tt_heat_up(s);
  s->ram = ram;
  g->waiters++;
  while (g->qn == g->cfg.ring_capacity && !g->stop) tt_wait_take_for(t, layer, eid);
  int ok = tt_enqueue_locked(t, layer, eid, ram, -1, -1, 0);
  tt_leave_wait_locked(t);
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_NOTED, layer, eid, tt_home(g, eid), ok, 1);
  return ok;
}

static int noted(tt_tier *t, int fn, int layer, int eid, void *ram) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, fn, layer, eid, ram != NULL);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    if (!tt_key_ok(&t->g, layer, eid)) {
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      rc = fn == TT_FN_NOTE ? note_locked(t, layer, eid, ram)
                            : note_block_locked(t, layer, eid, ram);
      tt_unlock(t);
    }
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, fn, rc);
  return rc;
}

int tt_note(tt_tier *t, int layer, int eid, void *ram) {
  return noted(t, TT_FN_NOTE, layer, eid, ram);
}

int tt_note_block(tt_tier *t, int layer, int eid, void *ram) {
  return noted(t, TT_FN_NOTE_BLOCK, layer, eid, ram);
}
