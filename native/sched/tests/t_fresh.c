/*
 * State that outlives a run. The program counts its runs in a global and asserts it is
 * the first: run in this process twice, the second run fails (the state leaked); with a
 * reset hook, or with each run in a fresh process, every run passes, and in fresh
 * processes this process's global is never touched. A child that dies (abort) comes back
 * as a crash with the choices and trace it had, and the caller goes on.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sched_check.h"

static int runs_seen, crash_at;
static pthread_mutex_t fr_mx = PTHREAD_MUTEX_INITIALIZER;

static void *bump(void *arg) {
  (void)arg;
  pthread_mutex_lock(&fr_mx);
  runs_seen++;
  pthread_mutex_unlock(&fr_mx);
  if (crash_at) abort();
  return NULL;
}

static void *counting_program(void *arg) {
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, bump, NULL);
  pthread_mutex_lock(&fr_mx); /* a section that interleaves with bump's: 3 schedules */
  int seen = runs_seen;
  pthread_mutex_unlock(&fr_mx);
  pthread_join(t, NULL);
  TL_SCHED_ASSERT(seen <= 1 && runs_seen == 1);
  return NULL;
}

static void reset_counter(void *arg) {
  (void)arg;
  runs_seen = 0;
}

static void test_leaks_without_reset(void) {
  runs_seen = 0;
  crash_at = 0;
  tl_sched_config c = sc_config(counting_program, NULL);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_VIOLATION);
  CHECK(sc_says(&r, "assertion failed: seen <= 1 && runs_seen == 1"));
  tl_sched_result_free(&r);
}

static void test_reset_hook(void) {
  runs_seen = 5;
  crash_at = 0;
  tl_sched_config c = sc_config(counting_program, NULL);
  c.reset = reset_counter;
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0 && st.runs > 1);
}

static void test_fresh_process(void) {
  runs_seen = 0;
  crash_at = 0;
  tl_sched_config c = sc_config(counting_program, NULL);
  c.fresh_process = 1;
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0 && st.runs > 1);
  CHECK(runs_seen == 0); /* every run counted in its own child */
}

static void test_child_crash(void) {
  runs_seen = 0;
  crash_at = 1;
  tl_sched_config c = sc_config(counting_program, NULL);
  c.fresh_process = 1;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0);
  CHECK(r.outcome == TL_SCHED_CRASHED);
  CHECK(sc_says(&r, "the child crashed: signal 6 in t1 at step"));
  CHECK(sc_says(&r, "was killed by signal 6"));
  CHECK(r.n_events >= 4 && r.events[r.n_events - 1].tid == 1);
  crash_at = 0;
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  tl_sched_result_free(&r);
}

void suite_fresh(void) {
  sc_run("state: a global outlives an in-process run (the second run fails)",
         test_leaks_without_reset);
  sc_run("state: the reset hook makes every run start clean", test_reset_hook);
  sc_run("state: fresh-process mode, every schedule in its own child", test_fresh_process);
  sc_run("state: a child that aborts is a crash with its trace, the caller goes on",
         test_child_crash);
}
