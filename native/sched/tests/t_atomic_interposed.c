/*
 * With TL_SCHED_INTERPOSE_ATOMICS, plain __atomic builtins and <stdatomic.h> calls are
 * scheduling points without any edit to the code: a spin on __atomic_load_n is preempted
 * (random choices complete it), and the trace shows the loads and the store.
 */
#define TL_SCHED_INTERPOSE_ATOMICS 1
#include "../tl_sched.h" /* again, now with the atomics renamed */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "sched_check.h"

static int plain_flag;
static atomic_int c11_count;

static void *plain_setter(void *arg) {
  (void)arg;
  atomic_fetch_add(&c11_count, 1);
  __atomic_store_n(&plain_flag, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *plain_spinner(void *arg) {
  (void)arg;
  plain_flag = 0;
  atomic_store(&c11_count, 0);
  pthread_t t;
  pthread_create(&t, NULL, plain_setter, NULL);
  while (!__atomic_load_n(&plain_flag, __ATOMIC_ACQUIRE)) {}
  pthread_join(t, NULL);
  TL_SCHED_ASSERT(atomic_load(&c11_count) == 1);
  return NULL;
}

static void test_plain_atomics(void) {
  tl_sched_source *s = tl_sched_source_random(11, 500);
  tl_sched_config c = sc_config(plain_spinner, s);
  c.limits.max_steps = 1000;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0);
  CHECK(r.outcome == TL_SCHED_COMPLETED);
  int loads = 0, stores = 0, rmws = 0;
  for (uint32_t i = 0; i < r.n_events; i++) {
    loads += r.events[i].op == TL_SCHED_OP_LOAD;
    stores += r.events[i].op == TL_SCHED_OP_STORE;
    rmws += r.events[i].op == TL_SCHED_OP_RMW;
  }
  CHECK(loads >= 2 && stores >= 2 && rmws == 1);
  tl_sched_result_free(&r);
  c.source = NULL; /* the quiet schedule never leaves the spin */
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_LIVELOCK);
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

void suite_atomic_interposed(void) {
  sc_run("atomics renamed: __atomic and stdatomic calls are scheduling points", test_plain_atomics);
}
