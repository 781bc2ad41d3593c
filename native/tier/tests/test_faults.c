/*
 * Faults on the fake backend: an upload that fails ("device genuinely full": the charge
 * given back, the budget lowered, fill_wait still returns), init failing at every stage
 * (nothing left allocated, the tier DEAD, the next init works), a staging copy that
 * cannot be made, a group that cannot be issued or collected, a memory query that fails.
 */
#include <string.h>

#include "tt_fixture.h"

#define H 8

static void upload_failure_path(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 4);
  TF_OPEN(&w, &cfg, 1, 1);
  fb_arm(w.fake, FB_UPLOAD, 5); /* the third part of the second expert */
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  tt_key keys[4];
  CHECK(tt_plan_fill(w.tier, keys, 4) == 4);
  for (int i = 0; i < 2; i++) CHECK(tt_note_planned(w.tier, 0, i, tf_ram(&w, 0, i)) == 1);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  CHECK(tt_is_resident(w.tier, 0, 0) == 1 && tt_is_resident(w.tier, 0, 1) == 0);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  /* E0 resident, E2 and E3 still planned; E1's charge given back, budget = used */
  CHECK(s.upload_failures == 1 && s.uploads == 1 && s.inflight == 0);
  CHECK(s.used[0] == 3 * s.exp_bytes && s.budget[0] == s.used[0]);
  fb_ledger l;
  fb_ledger_get(w.fake, &l);
  CHECK(l.tensors_live == 3 && l.staging_live == 0 && l.frees == 2);
  CHECK(tt_note(w.tier, 0, 1, tf_ram(&w, 0, 1)) == 0); /* the device stopped trying */
  for (int i = 2; i < 4; i++) tt_note_planned(w.tier, 0, i, NULL);
  tf_close(&w);
}

/* init fails at `site`'s call numbered nth: off, nothing allocated, DEAD; then it works. */
static void init_fails_at(int site, uint64_t nth, const char *reason) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 2, 4, 2);
  tt_trunk_offer offer = {.layer = -1, .weight_bytes = 64u << 10, .rows = 2, .cols = 2};
  cfg.trunk = &offer;
  cfg.ntrunk = 1;
  cfg.budget_bytes[0] = TT_BUDGET_AUTO;
  TF_OPEN(&w, &cfg, 1, 1);
  fb_arm(w.fake, site, nth);
  tt_init_result res;
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_OFF && strcmp(res.reason, reason) == 0);
  CHECK(tt_life(w.tier) == TT_LIFE_DEAD);
  tf_check_clean(&w, reason);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 0);
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_ACTIVE);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 1);
  tf_close(&w);
}

static void init_failure_every_stage(void) {
  init_fails_at(FB_HOST_ALLOC, 0, "cannot allocate the slot table");
  init_fails_at(FB_HOST_ALLOC, 1, "cannot allocate the upload ring");
  init_fails_at(FB_SYNC_INIT, 0, "cannot initialize the mutex and condition variables");
  init_fails_at(FB_THREAD_START, 0, "cannot start the uploader thread");
}

static void refused_configurations(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 2);
  TF_OPEN(&w, &cfg, 1, 1);
  tt_init_result res;
  tt_config bad = cfg;
  bad.topk = 33;
  CHECK(tt_init(w.tier, &bad, &res) == TT_INIT_OFF &&
        strcmp(res.reason, "topk 33 exceeds 32 rows per group") == 0);
  bad = cfg;
  bad.ram_capacity = 3;
  CHECK(tt_init(w.tier, &bad, &res) == TT_INIT_OFF);
  bad.streaming = 1;
  bad.heat_path = "heat";
  CHECK(tt_init(w.tier, &bad, &res) == TT_INIT_OFF &&
        strcmp(res.reason, "streaming mode has no heat-file warmstart") == 0);
  bad = cfg;
  bad.format = 1;
  bad.group = 64;
  CHECK(tt_init(w.tier, &bad, &res) == TT_INIT_OFF);
  bad = cfg;
  bad.ring_capacity = 0;
  CHECK(tt_init(w.tier, &bad, &res) == TT_E_ARG &&
        strstr(tt_last_error(), "ring_capacity") != NULL);
  tf_check_clean(&w, "after refusals");
  tf_close(&w);
}

/* A staging copy that cannot be made: refused, nothing charged. A memory query that
 * fails: an automatic budget of 0. */
static void stage_and_mem_info_faults(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 2);
  cfg.budget_bytes[1] = TT_BUDGET_AUTO;
  TF_OPEN(&w, &cfg, 2, 1);
  fb_arm(w.fake, FB_MEM_INFO, 0);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  fb_arm(w.fake, FB_STAGE, 0);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 0);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  CHECK(s.used[0] == 0 && s.budget[1] == 0);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 1);
  CHECK(tt_note(w.tier, 0, 1, tf_ram(&w, 0, 1)) == 0); /* device 1 has no budget */
  tf_close(&w);
}

/* Device 1's issue fails: its experts go back to the CPU; device 0's take fails: its
 * outputs are lost (untouched) and take says so; the next token works. */
static void issue_and_take_faults(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 2);
  TF_OPEN(&w, &cfg, 2, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  for (int e = 0; e < 4; e++) tt_note_block(w.tier, 0, e, tf_ram(&w, 0, e));
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  int route[2] = {0, 1};
  float x[H] = {1, 2, 3, 4, 5, 6, 7, 8}, y[2 * H], want[H];
  uint8_t mask[2];
  fb_arm(w.fake, FB_ISSUE, 1); /* device 1's group: issued after device 0's */
  fb_arm(w.fake, FB_TAKE, 0);
  for (int i = 0; i < 2 * H; i++) y[i] = -1.0f;
  CHECK(tt_issue(w.tier, 0, route, 2, x, mask) == 1 && mask[0] == 1 && mask[1] == 0);
  CHECK(tt_take(w.tier, y, 2, H) == 0 && y[0] == -1.0f);
  CHECK(tt_issue(w.tier, 0, route, 2, x, mask) == 2);
  CHECK(tt_take(w.tier, y, 2, H) == 1);
  fb_expert_output(0, 1, x, want, H);
  CHECK(memcmp(y + H, want, sizeof want) == 0);
  tf_close(&w);
}

void suite_tier_faults(void) {
  th_run("tier: a failed upload gives its charge back and stops the device", upload_failure_path);
  th_run("tier: init failing at every stage leaves nothing allocated", init_failure_every_stage);
  th_run("tier: init refuses the protocol's bad configurations", refused_configurations);
  th_run("tier: a failed staging copy or memory query", stage_and_mem_info_faults);
  th_run("tier: a failed group issue or collection", issue_and_take_faults);
}
