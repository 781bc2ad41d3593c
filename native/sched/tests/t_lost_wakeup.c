/*
 * Lost wakeups, found and replayed. Two bugs of the kind the tier's fill_wait race is:
 *  - "if" instead of "while" around a condition wait: two consumers, one producer of two
 *    items; a woken consumer can be overtaken by the other one and take from an empty
 *    queue (the program's own assertion fails: a violation);
 *  - a flag set and signalled outside the lock: the signal can come between the waiter's
 *    check and its wait, and the waiter sleeps forever (a deadlock).
 * Each is found by exhaustive enumeration and by PCT within a bounded number of runs,
 * and the failing run's recorded choices replay it exactly (same trace bytes). The fixed
 * programs pass every schedule.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_check.h"

static pthread_mutex_t q_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cv = PTHREAD_COND_INITIALIZER;
static int q_items, q_use_while;

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&q_mx);
  if (q_use_while) {
    while (q_items == 0) pthread_cond_wait(&q_cv, &q_mx);
  } else {
    if (q_items == 0) pthread_cond_wait(&q_cv, &q_mx); /* the bug */
  }
  TL_SCHED_ASSERT(q_items > 0);
  q_items--;
  pthread_mutex_unlock(&q_mx);
  return NULL;
}

static void *queue_program(void *arg) {
  (void)arg;
  q_items = 0;
  pthread_t c1, c2;
  pthread_create(&c1, NULL, consumer, NULL);
  pthread_create(&c2, NULL, consumer, NULL);
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&q_mx);
    q_items++;
    pthread_cond_signal(&q_cv);
    pthread_mutex_unlock(&q_mx);
  }
  pthread_join(c1, NULL);
  pthread_join(c2, NULL);
  return NULL;
}

static pthread_mutex_t f_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t f_cv = PTHREAD_COND_INITIALIZER;
static int f_flag, f_locked_setter;

static void *setter(void *arg) {
  (void)arg;
  tl_sched_name_thread("setter");
  if (f_locked_setter) pthread_mutex_lock(&f_mx);
  f_flag = 1;
  pthread_cond_signal(&f_cv);
  if (f_locked_setter) pthread_mutex_unlock(&f_mx);
  return NULL;
}

static void *flag_program(void *arg) {
  (void)arg;
  f_flag = 0;
  pthread_t t;
  pthread_create(&t, NULL, setter, NULL);
  pthread_mutex_lock(&f_mx);
  while (!f_flag) pthread_cond_wait(&f_cv, &f_mx);
  pthread_mutex_unlock(&f_mx);
  pthread_join(t, NULL);
  return NULL;
}

/* the first failing run's choices and outcome */
typedef struct first_failure {
  uint32_t *choices;
  uint32_t n;
  int32_t outcome;
} first_failure;

static int keep_first_failure(void *ctx, const tl_sched_result *r) {
  first_failure *f = (first_failure *)ctx;
  if (r->outcome == TL_SCHED_COMPLETED) return 0;
  f->outcome = r->outcome;
  f->n = r->n_choices;
  f->choices = (uint32_t *)malloc((r->n_choices + 1) * sizeof(uint32_t));
  memcpy(f->choices, r->choices, r->n_choices * sizeof(uint32_t));
  return 1;
}

/* runs cfg with the given choices twice and checks both traces are the same bytes */
static int replays_exactly(tl_sched_config c, const uint32_t *choices, uint32_t n,
                           int32_t outcome) {
  static char a[1 << 16], b[1 << 16];
  tl_sched_result r1, r2;
  memset(&r1, 0, sizeof r1);
  memset(&r2, 0, sizeof r2);
  tl_sched_source *s1 = tl_sched_source_recorded(choices, n);
  tl_sched_source *s2 = tl_sched_source_recorded(choices, n);
  c.source = s1;
  tl_sched_run(&c, &r1);
  c.source = s2;
  tl_sched_run(&c, &r2);
  size_t la = tl_sched_trace_text(&r1, a, sizeof a), lb = tl_sched_trace_text(&r2, b, sizeof b);
  int ok = r1.outcome == outcome && r2.outcome == outcome && la == lb && memcmp(a, b, la) == 0;
  if (!ok) sc_show(&r1);
  tl_sched_result_free(&r1);
  tl_sched_result_free(&r2);
  tl_sched_source_free(s1);
  tl_sched_source_free(s2);
  return ok;
}

static void exhaustive_finds(void *(*program)(void *), int32_t outcome, const char *says) {
  first_failure f;
  memset(&f, 0, sizeof f);
  tl_sched_config c = sc_config(program, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 100000, keep_first_failure, &f, &st) == 0);
  CHECK(st.stopped == 1 && f.outcome == outcome);
  CHECK(replays_exactly(c, f.choices, f.n, outcome));
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  tl_sched_source *s = tl_sched_source_recorded(f.choices, f.n);
  c.source = s;
  tl_sched_run(&c, &r);
  CHECK(sc_says(&r, says));
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
  free(f.choices);
}

/* PCT: depth 3, k 40, seeds 1.. until a failure; bounded by 2000 runs */
static void pct_finds(void *(*program)(void *), int32_t outcome) {
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  tl_sched_source *s = tl_sched_source_pct(1, 3, 40);
  tl_sched_config c = sc_config(program, s);
  int runs = 0;
  while (runs < 2000) {
    runs++;
    tl_sched_run(&c, &r);
    if (r.outcome != TL_SCHED_COMPLETED) break;
  }
  CHECK(r.outcome == outcome);
  CHECK(replays_exactly(c, r.choices, r.n_choices, outcome));
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

static void fixed_passes(void *(*program)(void *)) {
  tl_sched_config c = sc_config(program, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 100000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0 && st.runs > 3);
  printf("    %llu schedules\n", (unsigned long long)st.runs);
}

static void test_if_exhaustive(void) {
  q_use_while = 0;
  exhaustive_finds(queue_program, TL_SCHED_VIOLATION, "assertion failed: q_items > 0");
}

static void test_if_pct(void) {
  q_use_while = 0;
  pct_finds(queue_program, TL_SCHED_VIOLATION);
}

static void test_if_fixed(void) {
  q_use_while = 1;
  fixed_passes(queue_program);
}

static void test_flag_exhaustive(void) {
  f_locked_setter = 0;
  exhaustive_finds(flag_program, TL_SCHED_DEADLOCK, "waits on cond#");
}

static void test_flag_pct(void) {
  f_locked_setter = 0;
  pct_finds(flag_program, TL_SCHED_DEADLOCK);
}

static void test_flag_fixed(void) {
  f_locked_setter = 1;
  fixed_passes(flag_program);
}

void suite_lost_wakeup(void) {
  sc_run("lost wakeup (if, not while): found by exhaustive search, replayed", test_if_exhaustive);
  sc_run("lost wakeup (if, not while): found by PCT, replayed", test_if_pct);
  sc_run("lost wakeup (if, not while): the fix passes every schedule", test_if_fixed);
  sc_run("lost wakeup (signal before wait): found by exhaustive search, replayed",
         test_flag_exhaustive);
  sc_run("lost wakeup (signal before wait): found by PCT, replayed", test_flag_pct);
  sc_run("lost wakeup (signal before wait): the fix passes every schedule", test_flag_fixed);
}
