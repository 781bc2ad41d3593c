/*
 * The scheduler's bench (make sched-bench): why managed threads are user-level contexts,
 * and what a schedule costs.
 *  1. switches per second: the assembly context switch, swapcontext, and a baton handed
 *     between two OS threads (a semaphore each: a futex wake and a wait per switch);
 *  2. the scheduler's own switch rate: two managed threads yielding to each other (each
 *     yield is a scheduling point, a decision and a switch);
 *  3. complete schedules per second of a toy tier (a ring, a producer, a consumer with a
 *     backend call per item; about 300 scheduling points), with the random and PCT
 *     sources in this process, and in a fresh process per run.
 * Figures are wall-clock rates on this machine, for the record; no test depends on them.
 */
#define _GNU_SOURCE
#define TL_SCHED_IMPLEMENTATION
#include "../tl_sched.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- 1. raw switches ---- */
static ucontext_t uc_home, uc_other;

static void uc_pong(void) {
  for (;;) swapcontext(&uc_other, &uc_home);
}

static double raw_swapcontext(long n) {
  static char stack[65536];
  getcontext(&uc_other);
  uc_other.uc_stack.ss_sp = stack;
  uc_other.uc_stack.ss_size = sizeof stack;
  makecontext(&uc_other, uc_pong, 0);
  double t = now_s();
  for (long i = 0; i < n; i++) swapcontext(&uc_home, &uc_other);
  return 2.0 * (double)n / (now_s() - t);
}

#if !defined(TL_SCHED_UCONTEXT)
static void *asm_home, *asm_other;

static void asm_pong(void) {
  for (;;) tls_switch_x86(&asm_other, asm_home);
}

/* the frame tls_fiber_init builds, by hand: control words, six registers, the entry */
static double raw_asm(long n) {
  static char stack[65536] __attribute__((aligned(16)));
  void **sp = (void **)(stack + sizeof stack);
  *--sp = NULL;
  *--sp = (void *)asm_pong;
  for (int i = 0; i < 6; i++) *--sp = NULL;
  --sp;
  uint32_t ctl[2] = {0x1f80u, 0x037fu};
  memcpy(sp, ctl, sizeof ctl);
  asm_other = sp;
  double t = now_s();
  for (long i = 0; i < n; i++) tls_switch_x86(&asm_home, asm_other);
  return 2.0 * (double)n / (now_s() - t);
}
#endif

static sem_t baton_a, baton_b;

static void *baton_peer(void *arg) {
  long n = *(long *)arg;
  for (long i = 0; i < n; i++) {
    sem_wait(&baton_b);
    sem_post(&baton_a);
  }
  return NULL;
}

static double os_baton(long n) {
  sem_init(&baton_a, 0, 0);
  sem_init(&baton_b, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, baton_peer, &n);
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    sem_post(&baton_b);
    sem_wait(&baton_a);
  }
  double dt = now_s() - t0;
  pthread_join(t, NULL);
  return 2.0 * (double)n / dt;
}

/* ---- 2. the scheduler's switches: two managed threads yielding to each other ---- */
static long yields_each;

static void *yielder(void *arg) {
  (void)arg;
  for (long i = 0; i < yields_each; i++) TL_SCHED_YIELD();
  return NULL;
}

static void *two_yielders(void *arg) {
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, yielder, NULL);
  yielder(NULL);
  pthread_join(t, NULL);
  return NULL;
}

/* steps per second; each yield hands over to the other thread (a yield goes last) */
static double sched_yields(long n) {
  yields_each = n;
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = two_yielders;
  c.limits.max_steps = (uint32_t)(3 * n + 100);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  double t = now_s();
  tl_sched_run(&c, &r);
  double dt = now_s() - t;
  double rate = r.outcome == TL_SCHED_COMPLETED ? (double)r.steps / dt : 0.0;
  tl_sched_result_free(&r);
  return rate;
}

/* ---- 3. a toy tier: a ring of 4, a producer, a consumer with a backend call ---- */
static pthread_mutex_t ring_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_space = PTHREAD_COND_INITIALIZER, ring_items = PTHREAD_COND_INITIALIZER;
static int ring_n;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 36; i++) {
    pthread_mutex_lock(&ring_mx);
    while (ring_n == 4) pthread_cond_wait(&ring_space, &ring_mx);
    ring_n++;
    pthread_cond_signal(&ring_items);
    pthread_mutex_unlock(&ring_mx);
  }
  return NULL;
}

static void *toy_tier(void *arg) {
  (void)arg;
  ring_n = 0;
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  for (int i = 0; i < 36; i++) {
    pthread_mutex_lock(&ring_mx);
    while (ring_n == 0) pthread_cond_wait(&ring_items, &ring_mx);
    ring_n--;
    pthread_cond_broadcast(&ring_space);
    pthread_mutex_unlock(&ring_mx);
    TL_SCHED_BACKEND("upload", NULL);
  }
  pthread_join(t, NULL);
  return NULL;
}

/* schedules per second over `runs` runs; *steps: the mean steps of a run */
static double toy_schedules(tl_sched_source *src, int fresh, int runs, double *steps) {
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = toy_tier;
  c.source = src;
  c.fresh_process = fresh;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  double total = 0;
  int done = 0;
  double t = now_s();
  for (int i = 0; i < runs; i++) {
    tl_sched_run(&c, &r);
    total += r.steps;
    done += r.outcome == TL_SCHED_COMPLETED;
  }
  double dt = now_s() - t;
  *steps = total / runs;
  tl_sched_result_free(&r);
  return done == runs ? runs / dt : 0.0;
}

/* mean switches (consecutive steps by different threads) of a toy-tier run */
static double toy_switches(tl_sched_source *src, int runs) {
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = toy_tier;
  c.source = src;
  c.record_trace = 1;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  long switches = 0;
  for (int i = 0; i < runs; i++) {
    tl_sched_run(&c, &r);
    for (uint32_t k = 1; k < r.n_events; k++) switches += r.events[k].tid != r.events[k - 1].tid;
  }
  tl_sched_result_free(&r);
  return (double)switches / runs;
}

int main(void) {
#if defined(TL_SCHED_UCONTEXT)
  const char *how = "swapcontext";
#else
  const char *how = "assembly switch";
  printf("switches/s, user-level contexts, assembly switch: %12.0f\n", raw_asm(20000000));
#endif
  printf("switches/s, user-level contexts, swapcontext:     %12.0f\n", raw_swapcontext(2000000));
  double baton = os_baton(200000);
  printf("switches/s, OS threads handing a baton:           %12.0f\n", baton);
  printf("scheduler (%s): steps/s of two threads yielding to each other: %.0f\n", how,
         sched_yields(1000000));
  double steps = 0;
  tl_sched_source *rnd = tl_sched_source_random(1, 500);
  double r1 = toy_schedules(rnd, 0, 5000, &steps);
  printf("toy tier, %.0f scheduling points a run (%s):\n", steps, how);
  printf("  random source, in this process:  %8.0f complete schedules/s\n", r1);
  tl_sched_source *pct = tl_sched_source_pct(1, 3, (uint32_t)steps);
  printf("  PCT (depth 3), in this process:  %8.0f complete schedules/s\n",
         toy_schedules(pct, 0, 5000, &steps));
  printf("  random source, a fresh process a run: %8.0f complete schedules/s\n",
         toy_schedules(rnd, 1, 500, &steps));
  double sw = toy_switches(rnd, 200);
  printf(
      "  a random run switches threads %.0f times: OS threads handing a baton would allow at\n"
      "  most %.0f schedules/s (before creating 2 OS threads per run)\n",
      sw, baton / sw);
  tl_sched_source_free(rnd);
  tl_sched_source_free(pct);
  return 0;
}
