/*
 * Mutexes and condition variables with static initializers, never passed to an init:
 * registered on first use (generation 1, no init event), usable across runs (each run
 * registers them again), and still valid real pthread objects outside the runs.
 */
#include <pthread.h>
#include <string.h>

#include "sched_check.h"

static pthread_mutex_t s_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_cv = PTHREAD_COND_INITIALIZER;
static int s_turn;

static void *ponger(void *arg) {
  (void)arg;
  pthread_mutex_lock(&s_mx);
  while (s_turn != 1) pthread_cond_wait(&s_cv, &s_mx);
  s_turn = 2;
  pthread_cond_broadcast(&s_cv);
  pthread_mutex_unlock(&s_mx);
  return NULL;
}

static void *ping_pong(void *arg) {
  (void)arg;
  s_turn = 0;
  pthread_t t;
  pthread_create(&t, NULL, ponger, NULL);
  pthread_mutex_lock(&s_mx);
  s_turn = 1;
  pthread_cond_broadcast(&s_cv);
  while (s_turn != 2) pthread_cond_wait(&s_cv, &s_mx);
  pthread_mutex_unlock(&s_mx);
  pthread_join(t, NULL);
  return NULL;
}

static void test_static(void) {
  tl_sched_config c = sc_config(ping_pong, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 10000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0 && st.runs > 1);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  CHECK(r.n_objects == 2);
  CHECK(r.n_objects == 2 && r.objects[0].addr == (const void *)&s_mx && r.objects[0].gen == 1);
  CHECK(r.n_objects == 2 && r.objects[1].addr == (const void *)&s_cv && r.objects[1].gen == 1);
  int inits = 0;
  for (uint32_t i = 0; i < r.n_events; i++) inits += r.events[i].op == TL_SCHED_OP_INIT;
  CHECK(inits == 0);
  tl_sched_result_free(&r);
  /* outside a run these are the real functions, on memory the runs left valid */
  CHECK(pthread_mutex_trylock(&s_mx) == 0);
  CHECK(pthread_cond_signal(&s_cv) == 0);
  CHECK(pthread_mutex_unlock(&s_mx) == 0);
}

void suite_static_init(void) {
  sc_run("static initializers: registered on first use, every schedule completes", test_static);
}
