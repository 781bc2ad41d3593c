/*
 * The shape of a counterexample exported as a standalone C regression test: one file
 * that needs nothing but the scheduler's single header (make sched-header writes it;
 * compile with `cc -I<dir of tl_sched.h> standalone.c -pthread`). The code under test
 * below is written with plain pthreads; the renaming is switched on in this file, before
 * any system header, so it is compiled exactly as it would be in the engine.
 *
 * The defect: a flag set and signalled outside the lock (the waiter can check it, the
 * signal can come, then the waiter sleeps forever). The recorded schedule forces that
 * interleaving: the defective code deadlocks under it; the fixed code passes it and
 * every other schedule. Exit status 0 when both hold, 1 otherwise.
 */
#define _GNU_SOURCE
#define TL_SCHED_IMPLEMENTATION
#define TL_SCHED_INTERPOSE
#include "tl_sched.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ---- the code under test (as the engine has it) ---- */
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, fixed;

static void *publisher(void *arg) {
  (void)arg;
  if (fixed) pthread_mutex_lock(&mx);
  ready = 1;
  pthread_cond_signal(&cv);
  if (fixed) pthread_mutex_unlock(&mx);
  return NULL;
}

static void *program(void *arg) {
  (void)arg;
  ready = 0;
  pthread_t t;
  pthread_create(&t, NULL, publisher, NULL);
  pthread_mutex_lock(&mx);
  while (!ready) pthread_cond_wait(&cv, &mx);
  pthread_mutex_unlock(&mx);
  pthread_join(t, NULL);
  return NULL;
}

/* ---- the regression test ---- */
/* the schedule, as the search printed it: the publisher runs after the waiter's check */
static const uint32_t schedule[] = {0, 1};

static int run_schedule(void) {
  tl_sched_source *src = tl_sched_source_recorded(schedule, sizeof schedule / sizeof schedule[0]);
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = program;
  c.source = src;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  tl_sched_run(&c, &r);
  int outcome = r.outcome;
  printf("  %s: %s%s%s\n", fixed ? "fixed " : "defect", tl_sched_outcome_name(outcome),
         r.description[0] ? ": " : "", r.description);
  tl_sched_result_free(&r);
  tl_sched_source_free(src);
  return outcome;
}

int main(void) {
  fixed = 0;
  int defect_fails = run_schedule() == TL_SCHED_DEADLOCK;
  fixed = 1;
  int fix_passes = run_schedule() == TL_SCHED_COMPLETED;
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = program;
  tl_sched_explore_stats st;
  tl_sched_explore(&c, 10000, NULL, NULL, &st);
  int fix_everywhere = st.complete && st.failures == 0;
  printf(
      "standalone: the defect fails its schedule: %s; the fix passes it: %s; and all %llu "
      "schedules: %s\n",
      defect_fails ? "yes" : "NO", fix_passes ? "yes" : "NO", (unsigned long long)st.runs,
      fix_everywhere ? "yes" : "NO");
  return defect_fails && fix_passes && fix_everywhere ? 0 : 1;
}
