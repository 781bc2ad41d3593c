/*
 * Runs on several OS threads at once: each OS thread that calls tl_sched_run has its own
 * run (the run's state is found through a thread-local pointer); they share only the
 * stack pool and the object names, behind locks. Two real threads enumerate the same
 * program (its state passed in its argument, not in globals) at the same time and both
 * count every schedule; under ThreadSanitizer this checks the library's shared state.
 */
#include <pthread.h>
#include <string.h>

#include "sched_check.h"

typedef struct pair_state {
  pthread_mutex_t mx;
  int sum;
} pair_state;

static void *adder(void *arg) {
  pair_state *p = (pair_state *)arg;
  pthread_mutex_lock(&p->mx);
  p->sum++;
  pthread_mutex_unlock(&p->mx);
  return NULL;
}

static void *pair_program(void *arg) {
  pair_state *p = (pair_state *)arg;
  p->sum = 0;
  pthread_mutex_init(&p->mx, NULL);
  pthread_t t;
  pthread_create(&t, NULL, adder, p);
  adder(p);
  pthread_join(t, NULL);
  pthread_mutex_destroy(&p->mx);
  TL_SCHED_ASSERT(p->sum == 2);
  return NULL;
}

typedef struct searcher {
  pair_state state;
  tl_sched_explore_stats st;
  int rc;
} searcher;

/* a real OS thread (created outside any run: the renamed pthread_create is the real one) */
static void *search(void *arg) {
  searcher *s = (searcher *)arg;
  tl_sched_config c = sc_config(pair_program, NULL);
  c.arg = &s->state;
  s->rc = 0;
  for (int i = 0; i < 50 && s->rc == 0; i++) s->rc = tl_sched_explore(&c, 1000, NULL, NULL, &s->st);
  return NULL;
}

static void test_two_os_threads(void) {
  searcher s[2];
  memset(s, 0, sizeof s);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, search, &s[i]) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(t[i], NULL) == 0);
  for (int i = 0; i < 2; i++) {
    CHECK(s[i].rc == 0 && s[i].st.complete == 1 && s[i].st.failures == 0);
    CHECK(s[i].st.runs == s[0].st.runs && s[i].st.runs > 1);
  }
}

void suite_concurrent(void) {
  sc_run("two OS threads enumerate at the same time, each its own runs", test_two_os_threads);
}
