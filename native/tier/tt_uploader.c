/*
 * The uploader thread (PROTOCOL.md, "uploader thread"; src/tier/uploader.ts).
 *
 * Waits on cv while the ring is empty and not stopping; leaves only when stopping and the
 * ring is empty. Each entry leaves `inflight` through exactly one decrement: the abandon
 * branch, or the common tail after the three uploads (success or failure). The ring slot
 * is freed at dequeue, before any copy: that is why fill_wait waits on `inflight`, not
 * on `qn` (#1360). A swap frees its victim only once no group is open (an open group may
 * read the victim's tensors); stopping with a group still open, it abandons: the victim
 * stays resident with its tensors and the incoming expert is dropped.
 */
#include "tt_state.h"

/* A swap's victim (mx held): 1 and its tensors taken, or 0 when the swap was abandoned
 * (the entry is finished; mx is held again on return). */
static int take_victim_locked(tt_tier *t, const tt_entry *e, void *victim[3]) {
  tt_gen *g = &t->g;
  tt_slot *v = tt_slot_at(g, e->vlayer, e->veid);
  while (g->issue_open && !g->stop) tt_wait_take(t);
  if (g->stop && g->issue_open) {
    v->resident = 1;
    tt_slot_at(g, e->layer, e->eid)->queued = 0;
    g->inflight--;
    g->c.swaps_abandoned++;
    if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_SWAP_ABANDONED, e->layer, e->eid, e->vlayer, e->veid, 0);
    tt_broadcast_take(t);
    tt_unlock(t);
    tt_be_unstage(t, e->staging);
    tt_lock(t);
    return 0;
  }
  for (int p = 0; p < 3; p++) {
    victim[p] = v->tensors[p];
    v->tensors[p] = NULL;
  }
  if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_VICTIM_TAKEN, e->layer, e->eid, e->vlayer, e->veid, 0);
  return 1;
}

/* Outside the lock: the victim freed, the three parts uploaded in order until one fails
 * (the parts already uploaded then freed), the staging copy freed. 1 when all landed. */
static int upload_unlocked(tt_tier *t, const tt_entry *e, void *const victim[3], void *h[3]) {
  int dev = tt_home(&t->g, e->eid);
  if (e->vlayer >= 0)
    for (int p = 0; p < 3; p++) tt_be_free(t, dev, victim[p]);
  int n = 0;
  for (int part = 0; part < 3; part++) {
    h[part] = tt_be_upload(t, dev, e->staging, part, e->layer, e->eid);
    if (h[part] == NULL) break;
    n++;
  }
  if (n < 3)
    for (int p = 0; p < n; p++) tt_be_free(t, dev, h[p]);
  tt_be_unstage(t, e->staging);
  return n == 3;
}

/* Back under the lock: resident, or ("device genuinely full") the charge given back and
 * the home budget lowered to what is used, so that device stops trying. */
static void finish_locked(tt_tier *t, const tt_entry *e, int ok, void *const h[3]) {
  tt_gen *g = &t->g;
  tt_slot *s = tt_slot_at(g, e->layer, e->eid);
  int dev = tt_home(g, e->eid);
  /* the victim's tensors were freed whether or not the upload then succeeded: an eviction
   * (an abandoned swap never gets here, and evicts nothing) */
  if (e->vlayer >= 0) tt_evicted_push_locked(t, e->vlayer, e->veid);
  if (ok) {
    for (int p = 0; p < 3; p++) s->tensors[p] = h[p];
    s->resident = 1;
    g->c.uploads++;
    if (e->vlayer >= 0) g->c.swaps++;
  } else {
    g->used[dev] -= g->exp_bytes;
    g->budget[dev] = g->used[dev];
    g->c.upload_failures++;
  }
  s->queued = 0;
  g->inflight--;
  if (TT_LOGGING(t))
    tt_ev_swap(t, ok ? TT_EV_UPLOAD_DONE : TT_EV_UPLOAD_FAILED, e->layer, e->eid, e->vlayer,
               e->veid, 0);
  tt_broadcast_take(t);
}

void *tt_uploader_main(void *arg) {
  tt_tier *t = arg;
  tt_gen *g = &t->g;
  tt_lock(t);
  for (;;) {
    while (g->qn == 0 && !g->stop) tt_wait_cv(t);
    if (g->qn == 0) break; /* stopping and nothing left */
    tt_entry e = g->ring[g->qh];
    g->ring[g->qh].staging = NULL;
    g->qh = (g->qh + 1) % g->cfg.ring_capacity;
    g->qn--;
    if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_DEQUEUE, e.layer, e.eid, e.vlayer, e.veid, 0);
    tt_broadcast_take(t); /* ring space freed */
    void *victim[3] = {NULL, NULL, NULL}, *h[3] = {NULL, NULL, NULL};
    if (e.vlayer >= 0 && !take_victim_locked(t, &e, victim)) continue;
    tt_unlock(t);
    int ok = upload_unlocked(t, &e, victim, h);
    tt_lock(t);
    finish_locked(t, &e, ok, h);
  }
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_UPLOADER_EXIT, -1, -1, -1, 0, 0);
  tt_unlock(t);
  return NULL;
}
