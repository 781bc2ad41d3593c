/*
 * Mesa semantics as choices. A timed wait nobody signals times out (a timeout is an
 * option the scheduler may choose: there is no clock), and so may a timed lock; which
 * waiter a signal wakes is a decision, and both are explored; spurious wakeups are
 * options only within their budget: a wait in an "if" is correct without them and
 * fails with one.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "sched_check.h"

static pthread_mutex_t tm_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tm_cv = PTHREAD_COND_INITIALIZER;
static int tm_rc, tm_ready, tm_woken[3];

static void *lonely_waiter(void *arg) {
  (void)arg;
  struct timespec t = {0, 0};
  pthread_mutex_lock(&tm_mx);
  tm_rc = pthread_cond_timedwait(&tm_cv, &tm_mx, &t);
  pthread_mutex_unlock(&tm_mx);
  TL_SCHED_ASSERT(tm_rc == ETIMEDOUT);
  return NULL;
}

static void test_timedwait_times_out(void) {
  tl_sched_config c = sc_config(lonely_waiter, NULL);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  int timeouts = 0;
  for (uint32_t i = 0; i < r.n_events; i++) timeouts += r.events[i].op == TL_SCHED_OP_TIMEOUT;
  CHECK(timeouts == 1);
  tl_sched_result_free(&r);
}

static void *holder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&tm_mx);
  TL_SCHED_YIELD();
  pthread_mutex_unlock(&tm_mx);
  return NULL;
}

static void *timed_locker(void *arg) {
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, holder, NULL);
  struct timespec ts = {0, 0};
  int rc = pthread_mutex_timedlock(&tm_mx, &ts);
  tm_woken[rc == 0 ? 0 : 1]++;
  if (rc == 0) pthread_mutex_unlock(&tm_mx);
  pthread_join(t, NULL);
  return NULL;
}

static void test_timedlock_both_ways(void) {
  memset(tm_woken, 0, sizeof tm_woken);
  tl_sched_config c = sc_config(timed_locker, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 1000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0);
  CHECK(tm_woken[0] > 0 && tm_woken[1] > 0); /* acquired in some runs, timed out in others */
}

static void *sleeper(void *arg) {
  (void)arg;
  pthread_mutex_lock(&tm_mx);
  while (!tm_ready) pthread_cond_wait(&tm_cv, &tm_mx);
  pthread_mutex_unlock(&tm_mx);
  return NULL;
}

/* two waiters, two signals: when both wait at the first signal, it wakes one of them */
static void *two_sleepers(void *arg) {
  (void)arg;
  tm_ready = 0;
  pthread_t a, b;
  pthread_create(&a, NULL, sleeper, NULL);
  pthread_create(&b, NULL, sleeper, NULL);
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&tm_mx);
    tm_ready = 1;
    pthread_cond_signal(&tm_cv);
    pthread_mutex_unlock(&tm_mx);
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return NULL;
}

static int saw_wake_choice(void *ctx, const tl_sched_result *r) {
  int *seen = (int *)ctx;
  for (uint32_t i = 0; i < r->n_events; i++) {
    const tl_sched_event *e = &r->events[i];
    if (e->op == TL_SCHED_OP_SIGNAL && e->arg >= 1) seen[e->arg] = 1;
  }
  for (uint32_t i = 0; i < r->n_log; i++) seen[0] |= r->log[i].kind == TL_SCHED_DECIDE_WAKE;
  return 0;
}

static void test_signal_chooses_waiter(void) {
  int seen[3] = {0, 0, 0};
  tl_sched_config c = sc_config(two_sleepers, NULL);
  c.record_decisions = 1;
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 100000, saw_wake_choice, seen, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0);
  CHECK(seen[0] && seen[1] && seen[2]); /* a wake decision, and each waiter woken first */
}

static int sp_items;

static void *if_consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&tm_mx);
  if (sp_items == 0) pthread_cond_wait(&tm_cv, &tm_mx); /* correct only without spurious */
  TL_SCHED_ASSERT(sp_items == 1);
  pthread_mutex_unlock(&tm_mx);
  return NULL;
}

static void *spurious_program(void *arg) {
  (void)arg;
  sp_items = 0;
  pthread_t t;
  pthread_create(&t, NULL, if_consumer, NULL);
  pthread_mutex_lock(&tm_mx);
  sp_items = 1;
  pthread_cond_signal(&tm_cv);
  pthread_mutex_unlock(&tm_mx);
  pthread_join(t, NULL);
  return NULL;
}

static void test_spurious_budget(void) {
  tl_sched_config c = sc_config(spurious_program, NULL);
  tl_sched_explore_stats none, one;
  CHECK(tl_sched_explore(&c, 10000, NULL, NULL, &none) == 0);
  CHECK(none.complete == 1 && none.failures == 0);
  c.limits.max_spurious = 1;
  CHECK(tl_sched_explore(&c, 10000, NULL, NULL, &one) == 0);
  CHECK(one.complete == 1 && one.failures > 0 && one.runs > none.runs);
}

void suite_timed(void) {
  sc_run("timed: a timed wait nobody signals times out (a chosen event)", test_timedwait_times_out);
  sc_run("timed: a timed lock acquires in some schedules, times out in others",
         test_timedlock_both_ways);
  sc_run("mesa: which waiter a signal wakes is a decision, both explored",
         test_signal_chooses_waiter);
  sc_run("mesa: a spurious wakeup only within its budget breaks an if-wait", test_spurious_budget);
}
