/*
 * shutdown (PROTOCOL.md, "shutdown" and "Lifecycle gate"; src/tier/shutdown.ts), in two
 * halves.
 *
 * First half (this caller moved the gate LIVE -> TEARING_DOWN; it holds no gate slot):
 * encode the heats, set `stop`, wake the uploader on cv and every caller parked on
 * cv_take (a swap parked on `issue_open` then abandons: without that broadcast the join
 * waits for a group only the joiner could close, #1340), write the heat file, join the
 * uploader (the woken callers leave through the gate, where the second half waits).
 * Second half (exclusive: every admitted caller has left, none is admitted): collect the
 * groups still open (the decode thread's take then reports them lost), free every
 * resident tensor, the trunk, every staging copy left in the ring, destroy mx, cv and
 * cv_take, free the host arrays, shut the backend down, and only then DEAD.
 * A shutdown that finds a teardown under way returns once it is complete; one that finds
 * DEAD returns at once unless a trunk tensor is live or a trunk upload in flight, which
 * it then frees in an exclusive section of its own.
 */
#include <stdlib.h>

#include "tt_state.h"

static uint8_t *encode_heat_locked(tt_gen *g, size_t *n) {
  size_t count = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  *n = tt_heat_file_bytes(g->cfg.layers, g->cfg.experts);
  uint32_t *heat = malloc(count * sizeof *heat);
  uint8_t *bytes = malloc(*n);
  if (heat != NULL && bytes != NULL) {
    for (size_t i = 0; i < count; i++) heat[i] = g->slots[i].heat;
    tt_heat_encode(heat, g->cfg.layers, g->cfg.experts, bytes);
  } else {
    free(bytes);
    bytes = NULL;
  }
  free(heat);
  return bytes;
}

static void first_half(tt_tier *t) {
  tt_gen *g = &t->g;
  uint8_t *heat = NULL;
  size_t n = 0;
  tt_lock(t);
  if (g->cfg.heat_path != NULL) heat = encode_heat_locked(g, &n);
  g->stop = 1;
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_STOP, -1, -1, -1, heat != NULL, 0);
  tt_signal_cv(t);
  tt_broadcast_take(t);
  /* no wait for the woken callers here: each holds a gate slot, and the second half's
   * exclusive entry waits for the last one out (PROTOCOL.md, "Lifecycle gate") */
  tt_unlock(t);
  if (heat != NULL) {
    int rc = tt_heat_save(t, heat, n);
    if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_HEAT_SAVED, -1, rc == 0, (int64_t)n);
    free(heat);
  }
  pthread_join(g->uploader, NULL);
  if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_JOINED, -1, 0, 0);
}

/* Under mx: claims the groups the decode thread left open (collected outside, before
 * any tensor is freed), in the same section as the release, as the protocol's one step. */
static void claim_open_groups_locked(tt_tier *t, int *n) {
  tt_gen *g = &t->g;
  int any = 0;
  for (int dev = 0; dev < g->devices; dev++) {
    n[dev] = g->ngroup[dev];
    g->ngroup[dev] = 0;
    any += n[dev] > 0;
  }
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_DRAINED, -1, -1, -1, any, 0);
}

static void collect_open_groups(tt_tier *t, const int *n) {
  tt_gen *g = &t->g;
  for (int dev = 0; dev < g->devices; dev++)
    if (n[dev] > 0)
      tt_be_take(t, dev, n[dev], g->yblock + (size_t)dev * TT_GROUP_ROWS * (size_t)g->cfg.hidden);
}

/* Under mx: the window closed, every charge given back (the tier holds nothing after). */
static void release_locked(tt_tier *t) {
  tt_gen *g = &t->g;
  size_t count = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  /* no broadcast: the section is exclusive and the uploader joined, nobody waits */
  g->issue_open = 0;
  for (size_t i = 0; i < count; i++) {
    tt_slot *s = &g->slots[i];
    if (s->resident || s->queued || s->planned)
      g->used[tt_home(g, (int)(i % g->cfg.experts))] -= g->exp_bytes;
  }
  tt_trunk_uncharge(t);
  /* one per device: each carries that device's used and budget after the release */
  for (int dev = 0; dev < g->devices && TT_LOGGING(t); dev++)
    tt_ev(t, TT_EV_RELEASED, -1, -1, dev, g->qn, 0);
}

/* Outside mx, alone: expert tensors, the trunk, staging copies, sync objects, arrays. */
static void free_all(tt_tier *t) {
  tt_gen *g = &t->g;
  size_t count = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  for (size_t i = 0; i < count; i++) {
    tt_slot *s = &g->slots[i];
    int dev = tt_home(g, (int)(i % (size_t)g->cfg.experts));
    for (int p = 0; p < 3 && s->tensors[0] != NULL; p++) tt_be_free(t, dev, s->tensors[p]);
    s->tensors[0] = s->tensors[1] = s->tensors[2] = NULL;
  }
  tt_trunk_release_from(t, 0);
  /* the uploader drains the ring before it leaves; anything left is released anyway */
  for (int k = 0; k < g->qn; k++)
    tt_be_unstage(t, g->ring[(g->qh + k) % g->cfg.ring_capacity].staging);
  g->qn = 0;
  tt_be_host_free(t, TT_HOST_SLOTS, g->host_slots);
  tt_be_host_free(t, TT_HOST_RING, g->host_ring);
  /* the sync objects after the host arrays, as the reference orders the release */
  pthread_cond_destroy(&g->cv_take);
  pthread_cond_destroy(&g->cv);
  pthread_mutex_destroy(&g->mx);
  g->host_slots = g->host_ring = NULL;
  g->slots = NULL;
  tt_be_shutdown(t);
}

void tt_teardown_second_half(tt_tier *t) {
  int life;
  /* the state is TEARING_DOWN and only this caller may leave it: this cannot refuse */
  if (!tt_gate_enter_x(t, TT_LIFE_TEARING_DOWN, &life)) return;
  int n[TT_MAX_DEVICES] = {0};
  tt_lock(t);
  claim_open_groups_locked(t, n);
  release_locked(t);
  tt_unlock(t);
  collect_open_groups(t, n);
  free_all(t);
  if (TT_LOGGING(t)) tt_ev_out(t, TT_SRC_TIER, TT_EV_TEARDOWN_DONE, -1, 0, 0);
  tt_gate_leave_x(t, TT_LIFE_DEAD, 1);
}

/* A trunk live while the expert tier is DEAD: freed in an exclusive section from DEAD.
 * 1 done, 0 lost to another exclusive section (the shutdown then refuses: already). */
static int free_dead_trunk(tt_tier *t) {
  int life;
  if (!tt_gate_enter_x(t, TT_LIFE_DEAD, &life)) return 0;
  tt_trunk_release_from(t, 0);
  tt_be_shutdown(t);
  tt_gate_leave_x(t, TT_LIFE_DEAD, 1);
  return 1;
}

int tt_shutdown(tt_tier *t) {
  if (t == NULL) return TT_E_ARG;
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_SHUTDOWN, -1, -1, 0);
  int rc = TT_SHUTDOWN_ALREADY;
  int dead_trunk = 0;
  if (tt_gate_begin_teardown(t, &dead_trunk)) {
    first_half(t);
    tt_teardown_second_half(t);
    rc = TT_SHUTDOWN_DONE;
  } else if (dead_trunk && free_dead_trunk(t)) {
    /* a trunk left at DEAD is freed in an exclusive section; a shutdown that loses it
     * to another (an init) refuses, as every loser of an exclusive entry does */
    rc = TT_SHUTDOWN_DONE;
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_SHUTDOWN, rc);
  return rc;
}
