/*
 * Exhaustive enumeration counts exactly the interleavings of small programs, counted by
 * hand below; and the callback source sees what every option's thread would do next.
 */
#include <pthread.h>
#include <string.h>

#include "sched_check.h"

/* Program 1: thread 0 creates t1, yields 3 times, joins t1; t1 yields 2 times.
 * After the create, t0 has 3 yields left and then the join, which can only run once t1
 * has finished; t1 has 3 steps (its start and 2 yields; its exit follows its last
 * yield without a scheduling point in between). Every interleaving of t0's 3 yields
 * with t1's 3 steps is one schedule, and the join comes last in each: C(6,3) = 20. */
static void *yielder(void *arg) {
  (void)arg;
  TL_SCHED_YIELD();
  TL_SCHED_YIELD();
  return NULL;
}

static void *two_yielders(void *arg) {
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, yielder, NULL);
  for (int i = 0; i < 3; i++) TL_SCHED_YIELD();
  pthread_join(t, NULL);
  return NULL;
}

/* Program 2: t0 creates t1, then lock, unlock, join; t1: lock, unlock.
 * t0's section [L0 U0] and t1's steps [S1 L1 U1] interleave without the two critical
 * sections overlapping: either t0's section comes before L1, with S1 before L0, between
 * L0 and U0, or after U0 (3 schedules), or it comes after U1 (1 schedule): 4. */
static pthread_mutex_t count_mx = PTHREAD_MUTEX_INITIALIZER;

static void *locker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&count_mx);
  pthread_mutex_unlock(&count_mx);
  return NULL;
}

static void *two_lockers(void *arg) {
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, locker, NULL);
  locker(NULL);
  pthread_join(t, NULL);
  return NULL;
}

static void test_count_yields(void) {
  tl_sched_config c = sc_config(two_yielders, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.runs == 20);
  CHECK(st.complete == 1);
  CHECK(st.failures == 0);
}

static void test_count_locks(void) {
  tl_sched_config c = sc_config(two_lockers, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.runs == 4);
  CHECK(st.complete == 1);
  CHECK(st.failures == 0);
}

/* the same counts when each run is in a fresh process (the widths travel back) */
static void test_count_fresh(void) {
  tl_sched_config c = sc_config(two_lockers, NULL);
  c.fresh_process = 1;
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.runs == 4);
  CHECK(st.complete == 1);
}

/* a bound on runs stops the enumeration without claiming completeness */
static void test_count_bounded(void) {
  tl_sched_config c = sc_config(two_yielders, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 7, NULL, NULL, &st) == 0);
  CHECK(st.runs == 7);
  CHECK(st.complete == 0);
}

typedef struct seen {
  unsigned decisions, bad;
} seen;

/* takes the last option each time, and checks each option says what its thread does */
static uint32_t take_last(void *ctx, const tl_sched_decision *d) {
  seen *s = (seen *)ctx;
  s->decisions++;
  if (d->n < 2 || d->options == NULL) s->bad++;
  for (uint32_t i = 0; i < d->n; i++) {
    const tl_sched_option *o = &d->options[i];
    int lockish = o->op == TL_SCHED_OP_LOCK || o->op == TL_SCHED_OP_UNLOCK;
    if (lockish && (o->obj_kind != TL_SCHED_OBJ_MUTEX || o->addr != (const void *)&count_mx))
      s->bad++;
    if (o->kind != TL_SCHED_OPTION_RUN) s->bad++;
  }
  return d->n - 1;
}

static void test_callback_log(void) {
  seen s = {0, 0};
  tl_sched_source *src = tl_sched_source_callback(take_last, &s);
  tl_sched_config c = sc_config(two_lockers, src);
  c.record_decisions = 1;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0);
  CHECK(r.outcome == TL_SCHED_COMPLETED);
  CHECK(s.decisions > 0 && s.bad == 0);
  CHECK(r.n_log == s.decisions && r.n_choices == s.decisions);
  for (uint32_t i = 0; i < r.n_log; i++) {
    CHECK(r.log[i].chosen == r.log[i].n - 1);
    CHECK(r.log[i].first + r.log[i].n <= r.n_options);
    CHECK(r.widths[i] == r.log[i].n);
  }
  tl_sched_result_free(&r);
  tl_sched_source_free(src);
}

void suite_count(void) {
  sc_run("count: 2 threads of yields, C(6,3) = 20 schedules", test_count_yields);
  sc_run("count: two critical sections, 4 schedules", test_count_locks);
  sc_run("count: the same in fresh processes", test_count_fresh);
  sc_run("count: a run bound stops the search, incomplete", test_count_bounded);
  sc_run("count: the callback source and the decision log", test_callback_log);
}
