/*
 * enqueue (mx held; PROTOCOL.md, "enqueue"): put one expert on the upload ring.
 *
 * Refuses, in this order (the TypeScript tier's, src/tier/enqueue.ts): after `stop`; when
 * the expert is resident or queued, or still holds the tensors of an eviction not yet
 * carried out (were it accepted, an abandoned swap would make it resident and queued at
 * once, charged twice); when there are no RAM weights; when the ring is full (counted as
 * a skip); when a plain upload that no plan reserved does not fit its home budget; when
 * the host staging copy cannot be made. Otherwise charges the budget (plain uploads no
 * plan reserved), makes the staging copy now (the RAM bytes may not live past the
 * caller's call), pushes, counts the entry in flight and wakes the uploader.
 *
 * Invariant kept: used[d] = exp_bytes x (resident + queued + planned on d) + trunk on d.
 */
#include "tt_state.h"

static int refuse(tt_tier *t, int layer, int eid, int reason) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_REFUSE, layer, eid, tt_home(&t->g, eid), reason, 0);
  return 0;
}

int tt_enqueue_locked(tt_tier *t, int layer, int eid, void *ram, int vlayer, int veid,
                      int reserved) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, layer, eid);
  if (g->stop) return refuse(t, layer, eid, TT_REFUSE_STOP);
  if (s->resident || s->queued || tt_has_tensors(s)) return refuse(t, layer, eid, TT_REFUSE_HELD);
  if (ram == NULL) return refuse(t, layer, eid, TT_REFUSE_NO_RAM);
  if (g->qn == g->cfg.ring_capacity) {
    g->c.queue_full_skips++;
    return refuse(t, layer, eid, TT_REFUSE_RING_FULL);
  }
  int dev = tt_home(g, eid);
  int charge = vlayer < 0 && !reserved;
  if (charge && g->used[dev] + g->exp_bytes > g->budget[dev])
    return refuse(t, layer, eid, TT_REFUSE_BUDGET);
  void *staging = tt_be_stage(t, ram, layer, eid);
  if (staging == NULL) return refuse(t, layer, eid, TT_REFUSE_STAGE);
  if (charge) g->used[dev] += g->exp_bytes;
  /* a planned expert's reservation now covers the queued entry */
  if (reserved) s->planned = 0;
  s->queued = 1;
  g->ring[g->qt] = (tt_entry){layer, eid, vlayer, veid, staging};
  g->qt = (g->qt + 1) % g->cfg.ring_capacity;
  g->qn++;
  g->inflight++;
  if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_ENQUEUE, layer, eid, vlayer, veid, reserved);
  tt_signal_cv(t);
  return 1;
}
