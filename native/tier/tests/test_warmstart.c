/*
 * The warmstart on the fake backend with real threads: plan_fill, loader threads handing
 * the plan over with note_planned, and fill_wait's promise (#1360): when it returns
 * (not stopping), every expert enqueued before it is resident or failed. The race is
 * forced through hook points: the uploader parks inside the last expert's upload (the
 * ring is empty then), fill_wait is called, and the upload resumes only once fill_wait
 * has either parked on cv_take (right) or returned (the defect), so a fill_wait that
 * waited for the ring instead of `inflight` fails here every time, not one run in fifteen.
 * Also: the heat file's round trip and a file of another shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tt_fixture.h"

#define FILL_TID 77u

typedef struct loader {
  tf_world *w;
  const tt_key *keys;
  int from, to, accepted;
} loader;

static void *load(void *arg) {
  loader *l = arg;
  for (int i = l->from; i < l->to; i++)
    l->accepted += tt_note_planned(l->w->tier, l->keys[i].layer, l->keys[i].eid,
                                   tf_ram(l->w, l->keys[i].layer, l->keys[i].eid));
  return NULL;
}

typedef struct park {
  tf_latch latch;
  uint64_t at; /* the upload call to park */
} park;

static int park_upload(void *arg, int site, uint64_t nth, int dev) {
  park *p = arg;
  (void)dev;
  if (site == FB_UPLOAD && nth == p->at) tf_latch_arrive_and_wait(&p->latch);
  return 0;
}

typedef struct filler {
  tf_world *w;
  tf_watch *watch;
  const tt_key *keys;
  int n, rc, resident;
} filler;

/* fill_wait, then residency read at once: the engine frees RAM copies right here */
static void *fill(void *arg) {
  filler *f = arg;
  tt_log_set_thread_id(FILL_TID);
  f->rc = tt_fill_wait(f->w->tier);
  for (int i = 0; i < f->n; i++)
    f->resident += tt_is_resident(f->w->tier, f->keys[i].layer, f->keys[i].eid);
  pthread_mutex_lock(&f->watch->latch.mx); /* returned: as good as parked for the test */
  f->watch->latch.reached = 1;
  pthread_cond_broadcast(&f->watch->latch.cv);
  pthread_mutex_unlock(&f->watch->latch.mx);
  return NULL;
}

static void fill_wait_waits_for_the_last_upload(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 2, 8, 5);
  TF_OPEN(&w, &cfg, 2, 1);
  tf_watch watch;
  tf_watch_start(&w, &watch, TT_EV_WAIT, 1, FILL_TID, 1);
  park p = {.at = 3 * 9}; /* the first part of the 10th (last) planned expert */
  tf_latch_init(&p.latch);
  fb_set_hook(w.fake, park_upload, &p);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  tt_key keys[16];
  int n = tt_plan_fill(w.tier, keys, 16);
  CHECK(n == 10); /* 5 per device */
  CHECK(keys[0].layer == 0 && keys[0].eid == 0 && keys[9].layer == 1 && keys[9].eid == 1);
  loader ld[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    ld[i] = (loader){&w, keys, i * n / 3, (i + 1) * n / 3, 0};
    pthread_create(&th[i], NULL, load, &ld[i]);
  }
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  CHECK(ld[0].accepted + ld[1].accepted + ld[2].accepted == n);
  tf_latch_wait_reached(&p.latch); /* the last entry is dequeued: the ring is empty */
  filler f = {&w, &watch, keys, n, -1, 0};
  pthread_t ft;
  pthread_create(&ft, NULL, fill, &f);
  tf_latch_wait_reached(&watch.latch); /* fill_wait parked on cv_take, or returned */
  tf_latch_open(&p.latch);
  pthread_join(ft, NULL);
  CHECK(f.rc == TT_FILL_DONE);
  CHECK(f.resident == n);
  for (int i = 0; i < n; i++) CHECK(tt_release_ram(w.tier, keys[i].layer, keys[i].eid) == 1);
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_DONE);
  tf_watch_stop(&w, &watch);
  tf_latch_destroy(&p.latch);
  tf_close(&w);
}

/* note_planned without weights gives the reservation back (#1331) */
static void planned_without_weights(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 2);
  TF_OPEN(&w, &cfg, 1, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  tt_key keys[4];
  CHECK(tt_plan_fill(w.tier, keys, 4) == 2);
  tt_stats s;
  tt_stats_get(w.tier, &s);
  CHECK(s.used[0] == 2 * s.exp_bytes);
  CHECK(tt_note_planned(w.tier, keys[0].layer, keys[0].eid, NULL) == 0);
  CHECK(tt_note_planned(w.tier, keys[1].layer, keys[1].eid, tf_ram(&w, 0, keys[1].eid)) == 1);
  CHECK(tt_fill_wait(w.tier) == TT_FILL_DONE);
  tt_stats_get(w.tier, &s);
  CHECK(s.used[0] == s.exp_bytes && s.resident == 1);
  CHECK(tt_note_planned(w.tier, 0, 2, tf_ram(&w, 0, 2)) == 0); /* never planned */
  tf_close(&w);
}

static char *temp_dir(void) {
  const char *base = getenv("TMPDIR");
  char *dir = malloc(512);
  snprintf(dir, 512, "%s/tt_heat_XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
  if (mkdtemp(dir) == NULL) {
    free(dir);
    return NULL;
  }
  return dir;
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

/* Heats saved at shutdown, halved on load, planned hottest first; another shape: ignored. */
static void heat_file_round_trip(void) {
  char *dir = temp_dir();
  if (dir == NULL) {
    CHECK(!"no temporary folder");
    return;
  }
  char path[600];
  snprintf(path, sizeof path, "%s/heat.qth", dir);
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 2, 4, 8);
  cfg.heat_path = path;
  TF_OPEN(&w, &cfg, 1, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  for (int i = 0; i < 9; i++) tt_note(w.tier, 1, 3, NULL); /* heat 9 */
  for (int i = 0; i < 5; i++) tt_note(w.tier, 0, 2, NULL); /* heat 5 */
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_DONE);
  uint8_t bytes[64];
  uint32_t heat[8];
  size_t n = read_all(path, bytes, sizeof bytes);
  CHECK(n == tt_heat_file_bytes(2, 4) && tt_heat_decode(bytes, n, 2, 4, heat) == 1);
  CHECK(heat[4 + 3] == 9 && heat[2] == 5 && heat[0] == 0);
  CHECK(tt_heat_decode(bytes, n, 4, 2, heat) == 0);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  tt_key keys[8];
  CHECK(tt_plan_fill(w.tier, keys, 8) == 8);
  /* halved: 4 and 2; then the cold ones in layer-major order */
  CHECK(keys[0].layer == 1 && keys[0].eid == 3 && keys[1].layer == 0 && keys[1].eid == 2);
  CHECK(keys[2].layer == 0 && keys[2].eid == 0 && keys[7].layer == 1 && keys[7].eid == 2);
  for (int i = 0; i < 8; i++) tt_note_planned(w.tier, keys[i].layer, keys[i].eid, NULL);
  CHECK(tt_shutdown(w.tier) == TT_SHUTDOWN_DONE);
  bytes[0] ^= 0xff; /* another magic: not this model's heat */
  FILE *f = fopen(path, "wb");
  if (f != NULL) {
    fwrite(bytes, 1, n, f);
    fclose(f);
  }
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  CHECK(tt_plan_fill(w.tier, keys, 8) == 8);
  CHECK(keys[0].layer == 0 && keys[0].eid == 0 && keys[1].eid == 1); /* natural order */
  for (int i = 0; i < 8; i++) tt_note_planned(w.tier, keys[i].layer, keys[i].eid, NULL);
  tf_close(&w);
  unlink(path);
  rmdir(dir);
  free(dir);
}

void suite_tier_warmstart(void) {
  th_run("tier: fill_wait returns only when the last upload is resident",
         fill_wait_waits_for_the_last_upload);
  th_run("tier: note_planned without weights gives the reservation back", planned_without_weights);
  th_run("tier: heat file saved, halved on load, another shape ignored", heat_file_round_trip);
}
