/*
 * Decode on the fake backend with real threads: issue/take (mask, hits and misses, the
 * outputs at their route positions, the 32-row stride), and an LFRU swap whose victim
 * is in the group being issued: the uploader must not free it while the group is open.
 * The order is forced through the log: the test waits until the uploader has recorded
 * its wait on cv_take (under mx, just before it waits) and only then looks at the
 * ledger, so a tier that frees the victim at once fails here every time.
 */
#include <string.h>

#include "tt_fixture.h"

#define H 8

static void fill_x(float *x, float base) {
  for (int h = 0; h < H; h++) x[h] = base + (float)h * 0.5f;
}

/* One layer, 8 experts on 2 devices, 2 per device resident: E0 E2 on 0, E1 E3 on 1. */
static void warm_four(tf_world *w, tt_config *cfg) {
  CHECK(tt_init(w->tier, cfg, NULL) == TT_INIT_ACTIVE);
  for (int e = 0; e < 4; e++) CHECK(tt_note_block(w->tier, 0, e, tf_ram(w, 0, e)) == 1);
  CHECK(tt_fill_wait(w->tier) == TT_FILL_DONE);
  CHECK(tt_resident_count(w->tier) == 4);
}

static void issue_and_take(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 2);
  TF_OPEN(&w, &cfg, 2, 1);
  warm_four(&w, &cfg);
  int eids[4] = {0, 1, 5, 2};
  float x[H], y[4 * H], want[H];
  uint8_t mask[4];
  fill_x(x, 1.0f);
  for (int i = 0; i < 4 * H; i++) y[i] = -7.0f;
  CHECK(tt_issue(w.tier, 0, eids, 4, x, mask) == 3);
  CHECK(mask[0] == 1 && mask[1] == 1 && mask[2] == 0 && mask[3] == 1);
  CHECK(tt_take(w.tier, y, 4, H) == 1);
  for (int i = 0; i < 4; i++) {
    if (!mask[i]) {
      CHECK(y[i * H] == -7.0f); /* a miss: untouched, the CPU computes it */
      continue;
    }
    fb_expert_output(0, eids[i], x, want, H);
    CHECK(memcmp(y + i * H, want, sizeof want) == 0);
  }
  tt_stats s;
  CHECK(tt_stats_get(w.tier, &s) == 1);
  CHECK(s.hits == 3 && s.misses == 1 && s.tick == 1);
  int bad[1] = {8};
  CHECK(tt_issue(w.tier, 0, bad, 1, x, mask) == TT_E_ARG);
  CHECK(tt_take(w.tier, y, 4, H + 1) == TT_E_ARG);
  tf_close(&w);
}

/* 40 routed experts on one device: 32 rows in its group, the rest on the CPU. */
static void group_rows_bounded(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 48, 48);
  cfg.ring_capacity = 48;
  TF_OPEN(&w, &cfg, 1, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  for (int e = 0; e < 48; e++) tt_note(w.tier, 0, e, tf_ram(&w, 0, e));
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  int eids[40];
  uint8_t mask[40];
  float x[H], y[40 * H];
  for (int i = 0; i < 40; i++) eids[i] = i;
  fill_x(x, 2.0f);
  CHECK(tt_issue(w.tier, 0, eids, 40, x, mask) == TT_GROUP_ROWS);
  CHECK(mask[31] == 1 && mask[32] == 0);
  CHECK(tt_take(w.tier, y, 40, H) == 1);
  tf_close(&w);
}

typedef struct swap_world {
  tf_world w;
  tt_config cfg;
  tf_watch watch;
  float x[H], y[2 * H];
  uint8_t mask[2];
} swap_world;

/* E4 is made hot, then 16 ticks: at the 16th the round picks E0 (resident, cold, in the
 * group) as the victim while that group is open; the uploader parks on issue_open. */
static int swap_with_victim_in_group(swap_world *s) {
  tf_config(&s->cfg, 1, 8, 2);
  if (tf_open(&s->w, &s->cfg, 2, 1) != 0) return -1;
  tf_watch_start(&s->w, &s->watch, TT_EV_WAIT, 1, 0, 1);
  tf_watch_or(&s->watch, TT_EV_VICTIM_TAKEN); /* a tier that does not wait takes it at once */
  warm_four(&s->w, &s->cfg);
  for (int i = 0; i < 30; i++) tt_note(s->w.tier, 0, 4, tf_ram(&s->w, 0, 4)); /* refused: no room */
  int quiet[1] = {6}, route[2] = {0, 4};
  fill_x(s->x, 3.0f);
  for (int tick = 1; tick < 16; tick++) {
    tt_issue(s->w.tier, 0, quiet, 1, s->x, s->mask);
    tt_take(s->w.tier, s->y, 1, H);
  }
  CHECK(tt_issue(s->w.tier, 0, route, 2, s->x, s->mask) == 1);
  tf_latch_wait_reached(&s->watch.latch);
  return 0;
}

/* The log's record of the defect, whatever the threads did next: a victim's tensors
 * taken (to be freed) while a group was open. */
static int victims_taken_with_group_open(tf_world *w) {
  size_t n = tt_mem_sink_count(&w->mem);
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    const tt_event *e = &w->mem.events[i];
    bad += e->kind == TT_EV_VICTIM_TAKEN && (e->flags & TT_F_ISSUE_OPEN) != 0;
  }
  return bad;
}

static void swap_waits_for_the_group(void) {
  swap_world s;
  if (swap_with_victim_in_group(&s) != 0) {
    CHECK(!"the test world could not be built");
    return;
  }
  CHECK(victims_taken_with_group_open(&s.w) == 0);
  fb_ledger l;
  fb_ledger_get(s.w.fake, &l);
  CHECK(l.frees == 0 && l.violations == 0); /* the victim is still read by the open group */
  CHECK(tt_is_resident(s.w.tier, 0, 0) == 0); /* but no longer routed to the device */
  CHECK(tt_take(s.w.tier, s.y, 2, H) == 1);
  float want[H];
  fb_expert_output(0, 0, s.x, want, H);
  CHECK(memcmp(s.y, want, sizeof want) == 0);
  CHECK(tt_fill_wait(s.w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(s.w.tier, 0, 4) == 1 && tt_is_resident(s.w.tier, 0, 0) == 0);
  tt_stats st;
  tt_stats_get(s.w.tier, &st);
  CHECK(st.swaps == 1 && st.uploads == 5);
  fb_ledger_get(s.w.fake, &l);
  CHECK(l.frees == 3 && l.free_in_group == 0);
  CHECK(tt_shutdown(s.w.tier) == TT_SHUTDOWN_DONE);
  tf_watch_stop(&s.w, &s.watch);
  tf_close(&s.w);
}

/* The same swap, but the engine shuts down mid-token with its group open: the parked
 * swap abandons (the victim keeps its tensors until the teardown frees them, after it
 * collected the group), and the decode thread's take, refused at the gate, reports a loss. */
static void abandon_at_shutdown_with_group_open(void) {
  swap_world s;
  if (swap_with_victim_in_group(&s) != 0) {
    CHECK(!"the test world could not be built");
    return;
  }
  CHECK(tt_resident_count(s.w.tier) == 3); /* an entry point between issue and take */
  CHECK(tt_shutdown(s.w.tier) == TT_SHUTDOWN_DONE);
  CHECK(tt_take(s.w.tier, s.y, 2, H) == 0);
  CHECK(tt_take(s.w.tier, s.y, 2, H) == 0); /* refused at the door: a loss, every time */
  fb_ledger l;
  fb_ledger_get(s.w.fake, &l);
  CHECK(l.uploads == 12 && l.free_in_group == 0 && l.violations == 0);
  CHECK(tf_count_events(&s.w, TT_EV_SWAP_ABANDONED) == 1);
  tf_watch_stop(&s.w, &s.watch);
  tf_close(&s.w);
}

/* A fill-once backend never swaps, however hot a non-resident gets. */
static void fill_once_never_swaps(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 2);
  TF_OPEN(&w, &cfg, 2, 0);
  warm_four(&w, &cfg);
  for (int i = 0; i < 100; i++) tt_note(w.tier, 0, 4, tf_ram(&w, 0, 4));
  int route[1] = {0};
  float x[H], y[H];
  uint8_t mask[1];
  fill_x(x, 0.0f);
  for (int tick = 0; tick < 64; tick++) {
    tt_issue(w.tier, 0, route, 1, x, mask);
    tt_take(w.tier, y, 1, H);
  }
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 4) == 0 && tf_count_events(&w, TT_EV_SWAP_CHOSEN) == 0);
  tf_close(&w);
}

/* Streaming: the engine's RAM slot is recycled right after each note, so the tier copies
 * during the call (a later read of the freed copy would be a violation in the ledger) and
 * promotes then and there: into room, or by a budget-neutral swap once the admission rule
 * agrees (heat 6 > 1 + 0 + 4). */
static void streaming_copies_during_note(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 2);
  cfg.streaming = 1;
  cfg.ram_capacity = 2;
  TF_OPEN(&w, &cfg, 1, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  int accepted[8] = {0};
  for (int k = 0; k < 8; k++) {
    int e = k < 2 ? k : 5; /* E0 and E1 into room, then E5 until it is hot enough */
    void *ram = fb_ram_new(w.fake, 0, e);
    accepted[e] += tt_note(w.tier, 0, e, ram);
    fb_ram_free(w.fake, ram); /* recycled by the next token */
    if (k == 1) CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  }
  CHECK(accepted[0] == 1 && accepted[1] == 1 && accepted[5] == 1);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 5) == 1 && tt_is_resident(w.tier, 0, 0) == 0);
  tt_key ev[2];
  CHECK(tt_evicted_take(w.tier, ev, 2) == 1 && ev[0].eid == 0);
  fb_ledger l;
  fb_ledger_get(w.fake, &l);
  CHECK(l.violations == 0 && l.stages == 3);
  tf_close(&w);
}

void suite_tier_decode(void) {
  th_run("tier: streaming copies during note and swaps then and there",
         streaming_copies_during_note);
  th_run("tier: issue and take, outputs at their route positions", issue_and_take);
  th_run("tier: a device group holds at most 32 rows", group_rows_bounded);
  th_run("tier: an LFRU swap frees its victim only after the group is taken",
         swap_waits_for_the_group);
  th_run("tier: shutdown with a group open abandons the parked swap",
         abandon_at_shutdown_with_group_open);
  th_run("tier: a fill-once backend never swaps", fill_once_never_swaps);
}
