/*
 * The LFRU tick (mx held; PROTOCOL.md, "lfru tick"; src/tier/lfru.ts): heat decay and
 * the swap admission rule, run inside issue on layer 0 of each token.
 *
 * tick++; every decay period all heats halve; every swap period, per device, the coldest
 * resident (not queued) against the hottest expert that could be uploaded (not resident,
 * not queued, not planned, with RAM weights and no tensors held), both first in
 * layer-major order among equals: if hot > cold + cold/4 + 4 (64 bits), the victim
 * stops being resident at once (its experts go to the CPU from now on) and a swap is
 * enqueued (reported to the eviction ring once the uploader frees it); if refused, the
 * victim is resident again. Backends that cannot reclaim memory never swap (g->swaps is
 * 0): they fill once. Each tick also starts a few re-plan swaps left pending (tt_replan.c).
 */
#include "tt_state.h"

static void decay_locked(tt_gen *g) {
  size_t n = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  for (size_t i = 0; i < n; i++) g->slots[i].heat >>= 1;
}

/* One device's round: the coldest resident and the hottest candidate. */
static void round_locked(tt_tier *t, int dev) {
  tt_gen *g = &t->g;
  tt_slot *cold = NULL, *hot = NULL;
  int cl = -1, ce = -1, hl = -1, he = -1;
  for (int l = 0; l < g->cfg.layers; l++)
    for (int e = dev; e < g->cfg.experts; e += g->devices) {
      tt_slot *s = tt_slot_at(g, l, e);
      if (s->queued) continue;
      if (s->resident) {
        if (cold == NULL || s->heat < cold->heat) cold = s, cl = l, ce = e;
      } else if (!s->planned && s->ram != NULL && !tt_has_tensors(s)) {
        if (hot == NULL || s->heat > hot->heat) hot = s, hl = l, he = e;
      }
    }
  if (cold == NULL || hot == NULL || !tt_admits(hot->heat, cold->heat)) return;
  cold->resident = 0;
  if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_SWAP_CHOSEN, hl, he, cl, ce, 0);
  if (!tt_enqueue_locked(t, hl, he, hot->ram, cl, ce, 0)) {
    cold->resident = 1;
    if (TT_LOGGING(t)) tt_ev_swap(t, TT_EV_SWAP_UNDONE, hl, he, cl, ce, 0);
  }
}

void tt_lfru_tick_locked(tt_tier *t) {
  tt_gen *g = &t->g;
  g->tick++;
  int decayed = g->tick % (uint64_t)g->cfg.decay_period == 0;
  if (decayed) decay_locked(g);
  int round = g->swaps && g->tick % (uint64_t)g->cfg.swap_period == 0;
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_TICK, -1, -1, -1, (int64_t)g->tick, decayed | round << 1);
  if (round)
    for (int dev = 0; dev < g->devices; dev++) round_locked(t, dev);
  /* re-plan swaps left pending for want of ring space: a few per token */
  if (g->pend_n > 0) tt_replan_drain_locked(t, TT_REPLAN_PER_TICK);
}
