/*
 * A backend call that blocks outside the tier's lock. The tier's uploader takes a job
 * under the tier mutex, unlocks, and calls the fake backend's upload, which enters with a
 * scheduling point (TL_SCHED_BACKEND) and blocks until the fake device thread has done
 * the copy: on the backend's own mutex and condition variable, or polling a flag with a
 * yield. Meanwhile the decode thread runs and takes the tier mutex. Every schedule of
 * PCT's and the random source's (300 each, bounded by runs) completes, and some have
 * decode inside the tier lock while the upload is in flight (the interleaving a stress
 * test hopes for). Exhaustive search is not used here: without partial-order reduction
 * this program has more than 200,000 schedules.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sched_check.h"

/* ---- the fake backend: one device thread, one copy at a time ---- */
static pthread_mutex_t dev_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dev_cv = PTHREAD_COND_INITIALIZER;
static int dev_pending, dev_done, dev_polls;

/* does one copy: the program uploads once */
static void *device(void *arg) {
  (void)arg;
  tl_sched_name_thread("device");
  pthread_mutex_lock(&dev_mx);
  while (!dev_pending) pthread_cond_wait(&dev_cv, &dev_mx);
  dev_pending = 0;
  if (dev_polls)
    TL_SCHED_STORE(&dev_done, 1, __ATOMIC_RELEASE);
  else
    dev_done = 1;
  pthread_cond_broadcast(&dev_cv);
  pthread_mutex_unlock(&dev_mx);
  return NULL;
}

static void fake_upload(void) {
  TL_SCHED_BACKEND("upload", &dev_pending);
  pthread_mutex_lock(&dev_mx);
  dev_pending = 1;
  pthread_cond_broadcast(&dev_cv);
  if (dev_polls) {
    pthread_mutex_unlock(&dev_mx);
    while (!TL_SCHED_LOAD(&dev_done, __ATOMIC_ACQUIRE)) TL_SCHED_YIELD();
    return;
  }
  while (!dev_done) pthread_cond_wait(&dev_cv, &dev_mx);
  pthread_mutex_unlock(&dev_mx);
}

/* ---- the tier: one job, an uploader thread, a decode thread that waits for it ---- */
static pthread_mutex_t tier_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tier_cv = PTHREAD_COND_INITIALIZER;
static int queued, resident;

static void *uploader(void *arg) {
  (void)arg;
  tl_sched_name_thread("uploader");
  pthread_mutex_lock(&tier_mx);
  while (!queued) pthread_cond_wait(&tier_cv, &tier_mx);
  queued = 0;
  pthread_mutex_unlock(&tier_mx);
  fake_upload(); /* outside the tier's lock */
  pthread_mutex_lock(&tier_mx);
  resident = 1;
  pthread_cond_broadcast(&tier_cv);
  pthread_mutex_unlock(&tier_mx);
  return NULL;
}

static void *tier_program(void *arg) {
  (void)arg;
  dev_pending = dev_done = 0;
  queued = resident = 0;
  pthread_t dev, up;
  pthread_create(&dev, NULL, device, NULL);
  pthread_create(&up, NULL, uploader, NULL);
  pthread_mutex_lock(&tier_mx);
  queued = 1;
  pthread_cond_signal(&tier_cv);
  pthread_mutex_unlock(&tier_mx);
  pthread_mutex_lock(&tier_mx); /* a probe under the lock (is_resident) */
  int early = resident;
  pthread_mutex_unlock(&tier_mx);
  pthread_mutex_lock(&tier_mx); /* fill_wait */
  while (!resident) pthread_cond_wait(&tier_cv, &tier_mx);
  pthread_mutex_unlock(&tier_mx);
  TL_SCHED_ASSERT(early == 0 || early == 1);
  pthread_join(up, NULL);
  pthread_join(dev, NULL);
  return NULL;
}

/* did thread 0 take tier_mx between the uploader's backend entry and its completion? */
static int decode_during_upload(const tl_sched_result *r) {
  uint32_t tier = 0, upl = 2, in_flight = 0;
  for (uint32_t i = 0; i < r->n_objects; i++)
    if (r->objects[i].addr == (const void *)&tier_mx) tier = r->objects[i].id;
  for (uint32_t i = 0; i < r->n_events; i++) {
    const tl_sched_event *e = &r->events[i];
    if (e->tid == upl && e->op == TL_SCHED_OP_BACKEND) in_flight = 1;
    if (e->tid == upl && e->op == TL_SCHED_OP_LOCK && e->obj == tier) in_flight = 0;
    if (in_flight && e->tid == 0 && (e->op == TL_SCHED_OP_LOCK || e->op == TL_SCHED_OP_RELOCK) &&
        e->obj == tier)
      return 1;
  }
  return 0;
}

/* n runs from src: all must complete, and some must overlap decode with the upload */
static void runs_complete_with_overlap(tl_sched_source *src, int n) {
  int overlaps = 0, completed = 0;
  tl_sched_config c = sc_config(tier_program, src);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < n; i++) {
    tl_sched_run(&c, &r);
    completed += r.outcome == TL_SCHED_COMPLETED;
    overlaps += decode_during_upload(&r);
    if (r.outcome != TL_SCHED_COMPLETED && completed == i) sc_show(&r);
  }
  CHECK(completed == n && overlaps > 0);
  tl_sched_result_free(&r);
  tl_sched_source_free(src);
}

static void test_backend_blocks(void) {
  dev_polls = 0;
  runs_complete_with_overlap(tl_sched_source_pct(7, 3, 60), 300);
  runs_complete_with_overlap(tl_sched_source_random(8, 500), 300);
}

static void test_backend_polls(void) {
  dev_polls = 1;
  runs_complete_with_overlap(tl_sched_source_pct(9, 3, 60), 300);
  runs_complete_with_overlap(tl_sched_source_random(10, 500), 300);
}

void suite_backend(void) {
  sc_run("backend: a call blocking outside the lock on the backend's condvar (600 schedules)",
         test_backend_blocks);
  sc_run("backend: a call polling with a yield (600 schedules)", test_backend_polls);
}
