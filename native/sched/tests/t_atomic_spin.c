/*
 * A flag polled outside any lock. With a yield point in the loop (TL_SCHED_YIELD) the
 * spinner lets the setter run, even under all-zero choices (a yield puts the current
 * thread last); with only an atomic load as scheduling point (TL_SCHED_LOAD) the quiet
 * schedule spins until the step bound reports a livelock, and a random schedule
 * preempts the spinner and completes. A setter that can never set the flag is a
 * livelock whatever the schedule: the report names what each thread is doing.
 * (Without any scheduling point in the loop, a managed thread cannot be preempted.)
 */
#include <pthread.h>
#include <string.h>

#include "sched_check.h"

static int spin_flag, spin_mode;
static pthread_mutex_t never_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_cv = PTHREAD_COND_INITIALIZER;

static void *flag_setter(void *arg) {
  (void)arg;
  if (spin_mode == 2) { /* waits for a signal nobody sends */
    pthread_mutex_lock(&never_mx);
    pthread_cond_wait(&never_cv, &never_mx);
    pthread_mutex_unlock(&never_mx);
  }
  TL_SCHED_STORE(&spin_flag, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *spinner(void *arg) {
  (void)arg;
  spin_flag = 0;
  pthread_t t;
  pthread_create(&t, NULL, flag_setter, NULL);
  if (spin_mode == 1) {
    while (!TL_SCHED_LOAD(&spin_flag, __ATOMIC_ACQUIRE)) {}
  } else {
    while (!__atomic_load_n(&spin_flag, __ATOMIC_ACQUIRE)) TL_SCHED_YIELD();
  }
  pthread_join(t, NULL);
  return NULL;
}

static tl_sched_result run_spin(int mode, tl_sched_source *src) {
  spin_mode = mode;
  tl_sched_config c = sc_config(spinner, src);
  c.limits.max_steps = 1000;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  tl_sched_run(&c, &r);
  return r;
}

static void test_yield_spin(void) {
  tl_sched_result r = run_spin(0, NULL);
  CHECK(r.outcome == TL_SCHED_COMPLETED);
  tl_sched_result_free(&r);
}

static void test_load_spin(void) {
  tl_sched_result r = run_spin(1, NULL);
  CHECK(r.outcome == TL_SCHED_LIVELOCK && r.steps == 1000);
  CHECK(sc_says(&r, "step bound (1000 steps)") && sc_says(&r, "t0 \"main\" loads atomic#1 at "));
  tl_sched_result_free(&r);
  tl_sched_source *s = tl_sched_source_random(3, 500);
  r = run_spin(1, s);
  CHECK(r.outcome == TL_SCHED_COMPLETED);
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

static void test_never_set(void) {
  tl_sched_source *s = tl_sched_source_random(5, 500);
  tl_sched_result r = run_spin(2, s);
  CHECK(r.outcome == TL_SCHED_LIVELOCK);
  CHECK(sc_says(&r, "t1 waits on cond#"));
  tl_sched_result_free(&r);
  tl_sched_source_free(s);
}

void suite_atomic_spin(void) {
  sc_run("atomics: a spin with a yield point lets the setter run", test_yield_spin);
  sc_run("atomics: a spin on a load point: livelock at the bound, preempted at random",
         test_load_spin);
  sc_run("atomics: a flag that is never set: livelock, the report names the waiter",
         test_never_set);
}
