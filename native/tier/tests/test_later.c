/*
 * The tier's later features (PROTOCOL.md, "After the seeds"), each behind its own entry
 * point or configuration flag: the synchronous mode (a swap chosen at one tick has landed
 * by the next group), the eviction ring (each eviction reported once, oldest first),
 * re-plan (never-routed residents swapped for the prompt's most-routed non-residents,
 * strictly more routed only; what the ring cannot take waits and drains on a decode
 * tick), routing that prefers residents, and the stats mark.
 */
#include <string.h>

#include "tt_fixture.h"

#define H 8

static void warm(tf_world *w, int n) {
  CHECK(tt_init(w->tier, &w->cfg, NULL) == TT_INIT_ACTIVE);
  for (int e = 0; e < n; e++) CHECK(tt_note_block(w->tier, 0, e, tf_ram(w, 0, e)) == 1);
  CHECK(tt_fill_wait(w->tier) == TT_FILL_DONE);
}

static void tick(tf_world *w, int eid, uint8_t *mask) {
  float x[H] = {1, 2, 3, 4, 5, 6, 7, 8}, y[H];
  int route[1] = {eid};
  tt_issue(w->tier, 0, route, 1, x, mask);
  tt_take(w->tier, y, 1, H);
}

/* 16 ticks choose a swap of E4 for E0; in the sync mode the 17th group already has E4. */
static void sync_mode_lands_swaps(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  cfg.sync_uploads = 1;
  TF_OPEN(&w, &cfg, 1, 1);
  warm(&w, 4);
  for (int i = 0; i < 30; i++) tt_note(w.tier, 0, 4, tf_ram(&w, 0, 4));
  uint8_t mask[1];
  for (int t = 0; t < 16; t++) tick(&w, 6, mask);
  tick(&w, 4, mask);
  CHECK(mask[0] == 1 && tt_is_resident(w.tier, 0, 0) == 0);
  tt_key ev[4];
  CHECK(tt_evicted_take(w.tier, ev, 4) == 1 && ev[0].layer == 0 && ev[0].eid == 0);
  CHECK(tt_evicted_take(w.tier, ev, 4) == 0); /* reported once */
  tf_close(&w);
}

/* Residents E0..E3; the prompt routed E0 3, E3 5, E4 7, E6 2, E7 2 times: E1 and E2 (never
 * routed) make room for E4 and E6 (most routed first; E7 ties E6, later in order). */
static void replan_swaps_never_routed(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  TF_OPEN(&w, &cfg, 1, 1);
  warm(&w, 4);
  for (int e = 4; e < 8; e++) tt_note(w.tier, 0, e, tf_ram(&w, 0, e)); /* RAM known, no room */
  uint32_t counts[8] = {3, 0, 0, 5, 7, 0, 2, 2};
  tt_pair pairs[8];
  CHECK(tt_replan(w.tier, 0, counts, 8, pairs, 8) == 2);
  CHECK(pairs[0].eid == 4 && pairs[0].veid == 1 && pairs[1].eid == 6 && pairs[1].veid == 2);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 4) == 1 && tt_is_resident(w.tier, 0, 6) == 1);
  CHECK(tt_is_resident(w.tier, 0, 1) == 0 && tt_resident_count(w.tier) == 4);
  tt_key ev[4];
  CHECK(tt_evicted_take(w.tier, ev, 4) == 2 && ev[0].eid == 1 && ev[1].eid == 2);
  /* E4 never routed now, but neither is any non-resident: an equal count swaps nothing */
  uint32_t equal[8] = {1, 0, 0, 1, 0, 0, 1, 0};
  CHECK(tt_replan(w.tier, 0, equal, 8, pairs, 8) == 0);
  tf_close(&w);
}

typedef struct park {
  tf_latch latch;
} park;

static int park_first_upload(void *arg, int site, uint64_t nth, int dev) {
  (void)dev;
  if (site == FB_UPLOAD && nth == 12) tf_latch_arrive_and_wait(&((park *)arg)->latch);
  return 0;
}

/* A ring of one, its uploader parked in the first pair's upload: of the next two pairs one
 * starts (the ring takes it), one waits; the next decode tick starts it. */
static void replan_pending_drains_on_tick(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  cfg.ring_capacity = 1;
  TF_OPEN(&w, &cfg, 1, 1);
  park p;
  tf_latch_init(&p.latch);
  fb_set_hook(w.fake, park_first_upload, &p);
  warm(&w, 4);
  for (int e = 4; e < 7; e++) tt_note(w.tier, 0, e, tf_ram(&w, 0, e)); /* E7: no RAM */
  uint32_t counts[8] = {0, 0, 0, 1, 4, 2, 3, 9};
  tt_pair pairs[4];
  CHECK(tt_replan(w.tier, 0, counts, 1, pairs, 4) == 1 && pairs[0].eid == 4 && pairs[0].veid == 0);
  tf_latch_wait_reached(&p.latch); /* dequeued, parked in its upload: the ring is empty */
  CHECK(tt_replan(w.tier, 0, counts, 8, pairs, 4) == 2);
  CHECK(pairs[0].eid == 6 && pairs[0].veid == 1 && pairs[1].eid == 5 && pairs[1].veid == 2);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  CHECK(s.replan_pending == 1 && s.qn == 1 && tt_is_resident(w.tier, 0, 2) == 1);
  tf_latch_open(&p.latch);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 6) == 1 && tt_is_resident(w.tier, 0, 5) == 0);
  uint8_t mask[1];
  tick(&w, 3, mask); /* the decode tick starts the pending pair */
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 5) == 1 && tt_is_resident(w.tier, 0, 2) == 0);
  tt_key ev[4];
  CHECK(tt_evicted_take(w.tier, ev, 4) == 3 && ev[0].eid == 0 && ev[1].eid == 1 && ev[2].eid == 2);
  tf_latch_destroy(&p.latch);
  tf_close(&w);
}

/* Residents E0..E3. Window [5 6 1 7 2], k 3, j 1: E5 (the router's), then residents E1, E2. */
static void routing_prefers_residents(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  TF_OPEN(&w, &cfg, 1, 1);
  int ranked[5] = {5, 6, 1, 7, 2}, out[3];
  CHECK(tt_route_prefer(w.tier, 0, ranked, 5, 3, 1, NULL, out) == 3); /* not live: by rank */
  CHECK(out[0] == 5 && out[1] == 6 && out[2] == 1);
  warm(&w, 4);
  CHECK(tt_route_prefer(w.tier, 0, ranked, 5, 3, 1, NULL, out) == 3);
  CHECK(out[0] == 5 && out[1] == 1 && out[2] == 2);
  int cold[4] = {5, 6, 7, 4};
  uint8_t in_ram[4] = {0, 0, 1, 1};
  CHECK(tt_route_prefer(w.tier, 0, cold, 4, 3, 1, in_ram, out) == 3);
  CHECK(out[0] == 5 && out[1] == 7 && out[2] == 4);
  CHECK(tt_route_prefer(w.tier, 0, cold, 4, 4, 5, NULL, out) == TT_E_ARG);
  tf_close(&w);
}

static void stats_mark(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  TF_OPEN(&w, &cfg, 1, 1);
  warm(&w, 4);
  uint8_t mask[1];
  tick(&w, 0, mask);
  tick(&w, 5, mask);
  CHECK(tt_stats_mark(w.tier) == 1);
  tick(&w, 1, mask);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  CHECK(s.hits == 2 && s.misses == 1 && s.hits_since_mark == 1 && s.misses_since_mark == 0);
  tf_close(&w);
}

void suite_tier_later(void) {
  th_run("later: the sync mode lands a swap before the next group", sync_mode_lands_swaps);
  th_run("later: re-plan swaps never-routed residents, strictly more routed only",
         replan_swaps_never_routed);
  th_run("later: re-plan swaps the ring cannot take start on a decode tick",
         replan_pending_drains_on_tick);
  th_run("later: routing that prefers residents", routing_prefers_residents);
  th_run("later: the stats mark", stats_mark);
}
