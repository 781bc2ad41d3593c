/*
 * System calls about threads that a tier makes and a scheduler of user-level contexts
 * must survive: pthread_setaffinity_np and pthread_setname_np on a managed thread (its
 * own handle from pthread_self, or the creator's handle), read back with the _np getters;
 * an empty CPU set refused as glibc refuses it; and sched_setaffinity, which the renaming
 * does not see: in a fresh process it really pins the OS thread that runs the whole
 * schedule to one CPU, and the run completes all the same.
 */
#define _GNU_SOURCE /* the _np functions and cpu_set_t: the file's own feature macro works */
#include <pthread.h>
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "sched_check.h"

static int aff_results[8];

static void *pinned_worker(void *arg) {
  (void)arg;
  cpu_set_t set, back;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  aff_results[0] = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  CPU_ZERO(&back);
  aff_results[1] = pthread_getaffinity_np(pthread_self(), sizeof back, &back);
  aff_results[2] = CPU_ISSET(0, &back) && CPU_COUNT(&back) == 1;
  CPU_ZERO(&set);
  aff_results[3] = pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* EINVAL */
  char name[16];
  aff_results[4] =
      pthread_getname_np(pthread_self(), name, sizeof name) == 0 && strcmp(name, "pinned") == 0;
  return NULL;
}

static void *affinity_program(void *arg) {
  int raw_syscall = arg != NULL;
  pthread_t t;
  pthread_create(&t, NULL, pinned_worker, NULL);
  aff_results[5] = pthread_setname_np(t, "pinned");
  if (raw_syscall) { /* not renamed: pins the OS thread under every managed thread */
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) first++;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    TL_SCHED_ASSERT(sched_setaffinity(0, sizeof set, &set) == 0);
  }
  TL_SCHED_YIELD();
  pthread_join(t, NULL);
  TL_SCHED_ASSERT(aff_results[0] == 0 && aff_results[1] == 0 && aff_results[2] == 1);
  TL_SCHED_ASSERT(aff_results[3] == EINVAL && aff_results[5] == 0);
  return NULL;
}

static void test_np_calls(void) {
  memset(aff_results, 0, sizeof aff_results);
  cpu_set_t before, after;
  sched_getaffinity(0, sizeof before, &before);
  tl_sched_source *s = tl_sched_source_random(4, 500);
  tl_sched_config c = sc_config(affinity_program, s);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < 20; i++) {
    CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
    CHECK(r.n_threads == 2 && strcmp(r.threads[1].name, "pinned") == 0);
  }
  if (r.outcome != TL_SCHED_COMPLETED) sc_show(&r);
  /* the setaffinity of a managed thread was recorded, not applied to this OS thread */
  sched_getaffinity(0, sizeof after, &after);
  CHECK(CPU_EQUAL(&before, &after));
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

static void test_raw_syscall(void) {
  tl_sched_source *s = tl_sched_source_random(5, 500);
  tl_sched_config c = sc_config(affinity_program, s);
  c.arg = &c; /* non-null: make the raw call */
  c.fresh_process = 1;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < 5; i++) CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  if (r.outcome != TL_SCHED_COMPLETED) sc_show(&r);
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

void suite_affinity(void) {
  sc_run("affinity and names of managed threads: recorded, read back, not applied", test_np_calls);
  sc_run("sched_setaffinity (not renamed) pins the run's OS thread: runs still complete",
         test_raw_syscall);
}
