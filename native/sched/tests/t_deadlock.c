/*
 * A classic ABBA deadlock: worker-a takes A then B, worker-b takes B then A. The search
 * finds the schedule where each holds its first mutex, and the report names both
 * threads, what each waits on (mutex, name, address) and who holds it.
 */
#define _GNU_SOURCE /* pthread_setname_np; the forced renaming header leaves feature macros to the \
                       file */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_check.h"

static pthread_mutex_t mx_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mx_b = PTHREAD_MUTEX_INITIALIZER;

static void *worker_a(void *arg) {
  (void)arg;
  tl_sched_name_thread("worker-a");
  pthread_mutex_lock(&mx_a);
  pthread_mutex_lock(&mx_b);
  pthread_mutex_unlock(&mx_b);
  pthread_mutex_unlock(&mx_a);
  return NULL;
}

static void *worker_b(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "worker-b");
  pthread_mutex_lock(&mx_b);
  pthread_mutex_lock(&mx_a);
  pthread_mutex_unlock(&mx_a);
  pthread_mutex_unlock(&mx_b);
  return NULL;
}

static void *abba(void *arg) {
  (void)arg;
  pthread_t a, b;
  pthread_create(&a, NULL, worker_a, NULL);
  pthread_create(&b, NULL, worker_b, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return NULL;
}

static int stop_at_deadlock(void *ctx, const tl_sched_result *r) {
  tl_sched_result *keep = (tl_sched_result *)ctx;
  if (r->outcome != TL_SCHED_DEADLOCK) return 0;
  keep->outcome = r->outcome;
  keep->description = strdup(r->description);
  return 1;
}

static void test_abba(void) {
  tl_sched_name_object(&mx_a, "A");
  tl_sched_name_object(&mx_b, "B");
  tl_sched_config c = sc_config(abba, NULL);
  tl_sched_result found;
  memset(&found, 0, sizeof found);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 10000, stop_at_deadlock, &found, &st) == 0);
  CHECK(found.outcome == TL_SCHED_DEADLOCK);
  char a[64], b[64];
  snprintf(a, sizeof a, "mutex#1(A) at %p", (void *)&mx_a);
  snprintf(b, sizeof b, "mutex#2(B) at %p", (void *)&mx_b);
  CHECK(sc_says(&found, "t1 \"worker-a\" locks "));
  CHECK(sc_says(&found, "t2 \"worker-b\" locks "));
  CHECK(sc_says(&found, a) && sc_says(&found, b));
  CHECK(sc_says(&found, "held by t2 \"worker-b\"") && sc_says(&found, "held by t1 \"worker-a\""));
  CHECK(sc_says(&found, "t0 \"main\" joins t1 \"worker-a\""));
  if (found.description && !sc_says(&found, "held by")) printf("    %s\n", found.description);
  free(found.description);
}

/* a thread that locks a normal mutex it holds is blocked by itself: a deadlock too */
static void *self_lock(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mx_a);
  pthread_mutex_lock(&mx_a);
  return NULL;
}

static void test_self_deadlock(void) {
  tl_sched_config c = sc_config(self_lock, NULL);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0);
  CHECK(r.outcome == TL_SCHED_DEADLOCK);
  CHECK(sc_says(&r, "held by t0 \"main\" (itself)"));
  tl_sched_result_free(&r);
}

void suite_deadlock(void) {
  sc_run("deadlock: ABBA found, both threads and mutexes named", test_abba);
  sc_run("deadlock: a normal mutex locked twice by its holder", test_self_deadlock);
}
