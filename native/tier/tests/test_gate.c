/*
 * The lifecycle gate with real threads: shutdown wakes every parked caller and returns
 * only once they left; shutdown twice, and from several threads at once (one tears down,
 * the others return after it completed); init while live (ALREADY) and while another
 * init holds the gate (BUSY, never waits); init racing shutdown and the decode calls for
 * many rounds; the trunk at DEAD (uploaded, computed, charged by the next init, freed by
 * a shutdown that finds DEAD). Orders are forced through hook points and log events.
 */
#include <string.h>

#include "tt_fixture.h"

typedef struct park {
  tf_latch latch;
  int site;
  uint64_t at;
} park;

static int park_at(void *arg, int site, uint64_t nth, int dev) {
  park *p = arg;
  (void)dev;
  if (site == p->site && nth == p->at) tf_latch_arrive_and_wait(&p->latch);
  return 0;
}

typedef struct caller {
  tf_world *w;
  int rc;
} caller;

static void *fill_waiter(void *arg) {
  caller *c = arg;
  c->rc = tt_fill_wait(c->w->tier);
  return NULL;
}

static void *blocked_note(void *arg) {
  caller *c = arg;
  c->rc = tt_note_block(c->w->tier, 0, 7, tf_ram(c->w, 0, 7));
  return NULL;
}

static void *shutter(void *arg) {
  caller *c = arg;
  c->rc = tt_shutdown(c->w->tier);
  return NULL;
}

/* The uploader parks in its first upload; four entries fill the ring behind it; a
 * note_block waits for space and a fill_wait for the uploads. shutdown wakes both (they
 * return, refused / stopped) before it can join the uploader, which the test then lets go. */
static void shutdown_wakes_parked_callers(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 8);
  TF_OPEN(&w, &cfg, 1, 1);
  tf_watch watch;
  tf_watch_start(&w, &watch, TT_EV_WAIT, 1, 0, 2);
  park p = {.site = FB_UPLOAD, .at = 0};
  tf_latch_init(&p.latch);
  fb_set_hook(w.fake, park_at, &p);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 1);
  tf_latch_wait_reached(&p.latch);
  for (int e = 1; e <= 4; e++) CHECK(tt_note(w.tier, 0, e, tf_ram(&w, 0, e)) == 1);
  caller a = {&w, -1}, b = {&w, -1}, s = {&w, -1};
  pthread_t ta, tb, ts;
  pthread_create(&ta, NULL, fill_waiter, &a);
  pthread_create(&tb, NULL, blocked_note, &b);
  tf_latch_wait_reached(&watch.latch); /* both parked on cv_take */
  pthread_create(&ts, NULL, shutter, &s);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  CHECK(a.rc == TT_FILL_STOPPED && b.rc == 0);
  tf_latch_open(&p.latch);
  pthread_join(ts, NULL);
  CHECK(s.rc == TT_SHUTDOWN_DONE && tt_life(w.tier) == TT_LIFE_DEAD);
  tf_check_clean(&w, "after the teardown");
  fb_ledger l;
  fb_ledger_get(w.fake, &l);
  CHECK(l.uploads == 15); /* the uploader drained the ring after stop */
  tf_watch_stop(&w, &watch);
  tf_latch_destroy(&p.latch);
  tf_close(&w);
}

typedef struct racer {
  tf_world *w;
  pthread_barrier_t *go;
  int rc, life_after;
  fb_ledger after;
} racer;

static void *race_shutdown(void *arg) {
  racer *r = arg;
  pthread_barrier_wait(r->go);
  r->rc = tt_shutdown(r->w->tier);
  r->life_after = tt_life(r->w->tier);
  fb_ledger_get(r->w->fake, &r->after);
  return NULL;
}

/* Four shutdowns at once; the teardown parks in its backend shutdown until the three
 * others have lost (each records that it waits for the teardown). */
static void shutdown_concurrently(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 4);
  TF_OPEN(&w, &cfg, 2, 1);
  tf_watch watch;
  tf_watch_start(&w, &watch, TT_EV_GATE_REFUSE, 4, 0, 3);
  park p = {.site = FB_SHUTDOWN, .at = 0};
  tf_latch_init(&p.latch);
  fb_set_hook(w.fake, park_at, &p);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  for (int e = 0; e < 8; e++) tt_note(w.tier, 0, e, tf_ram(&w, 0, e));
  pthread_barrier_t go;
  pthread_barrier_init(&go, NULL, 4);
  racer r[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (racer){&w, &go, -1, -1, {0}};
    pthread_create(&th[i], NULL, race_shutdown, &r[i]);
  }
  tf_latch_wait_reached(&watch.latch);
  tf_latch_open(&p.latch);
  int done = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    done += r[i].rc == TT_SHUTDOWN_DONE;
    CHECK(r[i].life_after == TT_LIFE_DEAD && r[i].after.tensors_live == 0 &&
          r[i].after.host_live == 0);
  }
  CHECK(done == 1);
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_ALREADY);
  pthread_barrier_destroy(&go);
  tf_watch_stop(&w, &watch);
  tf_latch_destroy(&p.latch);
  tf_close(&w);
}

static void *second_init(void *arg) {
  caller *c = arg;
  c->rc = tt_init(c->w->tier, &c->w->cfg, NULL);
  return NULL;
}

/* An init parked in its first host allocation holds the gate: a second init says BUSY at
 * once, entry points refuse, a trunk upload is refused; then ACTIVE, and ALREADY. */
static void init_busy_and_already(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 4);
  TF_OPEN(&w, &cfg, 1, 1);
  park p = {.site = FB_HOST_ALLOC, .at = 0};
  tf_latch_init(&p.latch);
  fb_set_hook(w.fake, park_at, &p);
  caller first = {&w, -1};
  pthread_t t;
  pthread_create(&t, NULL, second_init, &first);
  tf_latch_wait_reached(&p.latch);
  tt_init_result res;
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_BUSY && res.state == TT_INIT_BUSY);
  CHECK(tt_note(w.tier, 0, 0, tf_ram(&w, 0, 0)) == 0);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_OFF);
  tt_trunk_offer offer = {.layer = -1, .weight_bytes = 4096, .rows = 4, .cols = 4};
  CHECK(tt_trunk_upload(w.tier, 0, &offer) == TT_E_STATE);
  tf_latch_open(&p.latch);
  pthread_join(t, NULL);
  CHECK(first.rc == TT_INIT_ACTIVE);
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_ALREADY);
  CHECK(tt_trunk_upload(w.tier, 0, &offer) == TT_E_STATE);
  tf_latch_destroy(&p.latch);
  tf_close(&w);
}

#define RACE_ROUNDS 150

typedef struct race {
  tf_world *w;
  int bad_init, bad_shutdown, actives, dones;
} race;

static void *race_inits(void *arg) {
  race *r = arg;
  for (int i = 0; i < RACE_ROUNDS; i++) {
    int rc = tt_init(r->w->tier, &r->w->cfg, NULL);
    r->bad_init += rc != TT_INIT_ACTIVE && rc != TT_INIT_ALREADY && rc != TT_INIT_BUSY;
    r->actives += rc == TT_INIT_ACTIVE;
  }
  return NULL;
}

static void *race_shutdowns(void *arg) {
  race *r = arg;
  for (int i = 0; i < RACE_ROUNDS; i++) {
    int rc = tt_shutdown(r->w->tier);
    r->bad_shutdown += rc != TT_SHUTDOWN_DONE && rc != TT_SHUTDOWN_ALREADY;
    r->dones += rc == TT_SHUTDOWN_DONE;
  }
  return NULL;
}

/* The decode thread's calls, whatever state the gate is in. */
static void *race_decode(void *arg) {
  race *r = arg;
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[16];
  uint8_t mask[2];
  for (int i = 0; i < RACE_ROUNDS; i++) {
    int route[2] = {i % 8, (i + 3) % 8};
    tt_note(r->w->tier, 0, route[0], tf_ram(r->w, 0, route[0]));
    tt_issue(r->w->tier, 0, route, 2, x, mask);
    tt_take(r->w->tier, y, 2, 8);
    if (i % 16 == 0) tt_fill_wait(r->w->tier);
  }
  return NULL;
}

/* init, shutdown and decode from three threads for many rounds: every answer is one the
 * API allows, nothing leaks, no tensor is used after its free; each init that succeeded
 * was torn down exactly once. */
static void init_races_shutdown(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 8, 3);
  cfg.swap_period = 2;
  TF_OPEN(&w, &cfg, 2, 1);
  race r = {&w, 0, 0, 0, 0};
  pthread_t a, b, c;
  pthread_create(&a, NULL, race_inits, &r);
  pthread_create(&b, NULL, race_shutdowns, &r);
  pthread_create(&c, NULL, race_decode, &r);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  r.dones += tt_shutdown(w.tier) == TT_SHUTDOWN_DONE;
  CHECK(r.bad_init == 0 && r.bad_shutdown == 0);
  CHECK(r.actives >= 1 && r.dones == r.actives);
  tf_check_clean(&w, "after the race");
  tf_close(&w);
}

/* The trunk without the expert tier: uploaded and computed at DEAD, charged by init,
 * refused while live, freed by a shutdown that finds DEAD. */
static void trunk_at_dead(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 4);
  TF_OPEN(&w, &cfg, 2, 1);
  tt_trunk_offer offer = {
      .layer = -1, .weight_bytes = 3u << 20, .scale_bytes = 4096, .rows = 6, .cols = 4};
  float x[4] = {1, 2, 3, 4}, y[6], want[6];
  CHECK(tt_dense_matmul(w.tier, 0, x, y) == 0); /* nothing placed: the CPU */
  CHECK(tt_trunk_upload(w.tier, 1, &offer) == 0);
  CHECK(tt_dense_matmul(w.tier, 0, x, y) == 1);
  fb_dense_output(0, 6, 4, x, want);
  CHECK(memcmp(y, want, sizeof want) == 0);
  tt_init_result res;
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_ACTIVE && res.trunk_base == 1);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  CHECK(s.used[1] == tt_trunk_charge(&offer) && s.used[0] == 0);
  CHECK(tt_trunk_upload(w.tier, 0, &offer) == TT_E_STATE);
  CHECK(tt_dense_matmul(w.tier, 0, x, y) == 1);
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_DONE);
  tf_check_clean(&w, "after a live shutdown");
  CHECK(tt_trunk_upload(w.tier, 0, &offer) == 0);
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_DONE); /* DEAD, but a trunk is live */
  tf_check_clean(&w, "after a dead shutdown");
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_ALREADY);
  CHECK(tt_dense_matmul(w.tier, 0, x, y) == 0);
  tf_close(&w);
}

/* Offers placed by init, best payload per charged byte first, each on the roomiest
 * device; one that fits nowhere stays on the CPU. */
static void trunk_offers_by_value(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 0);
  cfg.budget_bytes[0] = 6u << 20;
  cfg.budget_bytes[1] = 5u << 20;
  tt_trunk_offer offers[3] = {
      {.layer = 0,
       .weight_bytes = (2u << 20) + 1,
       .rows = 2,
       .cols = 2}, /* charged 4 MiB: poor value */
      {.layer = 1, .weight_bytes = 4u << 20, .rows = 2, .cols = 2}, /* 4 MiB, full value */
      {.layer = 2, .weight_bytes = 2u << 20, .rows = 2, .cols = 2}, /* 2 MiB, full value */
  };
  cfg.trunk = offers;
  cfg.ntrunk = 3;
  TF_OPEN(&w, &cfg, 2, 1);
  tt_init_result res;
  CHECK(tt_init(w.tier, &cfg, &res) == TT_INIT_ACTIVE && res.trunk_base == 0);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  /* offer 1 (4 MiB) on device 0 (6 MiB room), offer 2 (2 MiB) on device 1 (5 MiB room),
   * offer 0 (4 MiB) fits nowhere: 2 MiB left on 0, 3 MiB on 1 */
  CHECK(s.used[0] == (4u << 20) && s.used[1] == (2u << 20));
  float x[2] = {1, 1}, y[2];
  CHECK(tt_dense_matmul(w.tier, 0, x, y) == 0 && tt_dense_matmul(w.tier, 1, x, y) == 1);
  CHECK(tt_dense_matmul(w.tier, 2, x, y) == 1);
  tf_close(&w);
}

void suite_tier_gate(void) {
  th_run("gate: shutdown wakes parked callers and waits for them", shutdown_wakes_parked_callers);
  th_run("gate: four shutdowns at once, one teardown, all return after it", shutdown_concurrently);
  th_run("gate: init while another init holds the gate is BUSY, while live ALREADY",
         init_busy_and_already);
  th_run("gate: init, shutdown and decode race for many rounds", init_races_shutdown);
  th_run("gate: the trunk at DEAD, and a shutdown that finds DEAD frees it", trunk_at_dead);
  th_run("gate: trunk offers placed by value per byte on the roomiest device",
         trunk_offers_by_value);
}
