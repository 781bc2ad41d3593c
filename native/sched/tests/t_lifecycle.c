/*
 * Objects that live and die within the process: a mutex and a condition variable
 * cleared by memset, destroyed and initialized again get new generations and keep
 * working; every misuse is a violation with a readable description, the run stops
 * cleanly and the next run works: use after destroy (also after a memset), destroy while
 * locked or waited on, memset of a held mutex, unlock by a non-owner or of an unlocked
 * mutex, a join of an unknown or already joined thread, a wait without the mutex, a
 * double destroy, a mutex used as a condition variable.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sched_check.h"

static struct {
  pthread_mutex_t mx;
  pthread_cond_t cv;
  int go;
} box;
static int lc_case;

static void *box_waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&box.mx);
  while (!box.go) pthread_cond_wait(&box.cv, &box.mx);
  pthread_mutex_unlock(&box.mx);
  return NULL;
}

static void *box_unlocker(void *arg) {
  (void)arg;
  pthread_mutex_unlock(&box.mx);
  return NULL;
}

static void *nothing(void *arg) { return arg; }

/* an error-checking mutex: its initialized bytes are not all zero (glibc), so a memset
 * changes them and the scheduler sees it (a default mutex is all zeros: a memset of it
 * changes nothing, and nothing needs to be seen) */
static void init_errorcheck(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
}

/* the good life: init, memset while idle, destroy, init again, use with a waiter */
static void good_life(void) {
  init_errorcheck(&box.mx);
  pthread_cond_init(&box.cv, NULL);
  pthread_mutex_lock(&box.mx);
  pthread_mutex_unlock(&box.mx);
  memset(&box, 0, sizeof box); /* idle: the mutex's next use starts generation 2 */
  pthread_mutex_lock(&box.mx);
  pthread_mutex_unlock(&box.mx);
  pthread_mutex_destroy(&box.mx);
  pthread_cond_destroy(&box.cv);
  pthread_mutex_init(&box.mx, NULL); /* generation 3 of the mutex, 2 of the cond */
  pthread_cond_init(&box.cv, NULL);
  pthread_t t;
  pthread_create(&t, NULL, box_waiter, NULL);
  pthread_mutex_lock(&box.mx);
  box.go = 1;
  pthread_cond_signal(&box.cv);
  pthread_mutex_unlock(&box.mx);
  pthread_join(t, NULL);
  pthread_mutex_destroy(&box.mx);
  pthread_cond_destroy(&box.cv);
}

static void misuse(int which) {
  pthread_t t;
  pthread_mutex_init(&box.mx, NULL);
  pthread_cond_init(&box.cv, NULL);
  switch (which) {
    case 1:
      pthread_mutex_destroy(&box.mx);
      pthread_mutex_lock(&box.mx);
      break;
    case 2:
      pthread_mutex_destroy(&box.mx);
      memset(&box.mx, 0, sizeof box.mx); /* looks like a static initializer: still dead */
      pthread_mutex_lock(&box.mx);
      break;
    case 3:
      pthread_mutex_lock(&box.mx);
      pthread_mutex_destroy(&box.mx);
      break;
    case 4:
      pthread_create(&t, NULL, box_waiter, NULL);
      TL_SCHED_YIELD();
      pthread_cond_destroy(&box.cv);
      break;
    case 5:
      init_errorcheck(&box.mx);
      pthread_mutex_lock(&box.mx);
      memset(&box.mx, 0, sizeof box.mx);
      pthread_mutex_unlock(&box.mx);
      break;
    case 6:
      pthread_mutex_lock(&box.mx);
      pthread_create(&t, NULL, box_unlocker, NULL);
      pthread_join(t, NULL);
      break;
    case 7:
      pthread_mutex_unlock(&box.mx);
      break;
    case 8:
      pthread_join((pthread_t)0x1234, NULL);
      break;
    case 9:
      pthread_create(&t, NULL, nothing, NULL);
      pthread_join(t, NULL);
      pthread_join(t, NULL);
      break;
    case 10:
      pthread_cond_wait(&box.cv, &box.mx);
      break;
    case 11:
      pthread_mutex_destroy(&box.mx);
      pthread_mutex_destroy(&box.mx);
      break;
    case 12:
      pthread_cond_signal((pthread_cond_t *)(void *)&box.mx);
      break;
    default:
      break;
  }
}

static void *lifecycle(void *arg) {
  (void)arg;
  memset(&box, 0, sizeof box);
  if (lc_case == 0)
    good_life();
  else
    misuse(lc_case);
  return NULL;
}

static void test_good_life(void) {
  lc_case = 0;
  tl_sched_config c = sc_config(lifecycle, NULL);
  tl_sched_explore_stats st;
  CHECK(tl_sched_explore(&c, 10000, NULL, NULL, &st) == 0);
  CHECK(st.complete == 1 && st.failures == 0);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  CHECK(r.n_objects == 2 && r.objects[0].gen == 3 && r.objects[1].gen == 2);
  static char text[8192];
  tl_sched_trace_text(&r, text, sizeof text);
  CHECK(strstr(text, "init mutex#1.g2 (memory rewritten: a new generation)") != NULL);
  CHECK(strstr(text, "destroy mutex#1.g2\n") != NULL && strstr(text, "lock mutex#1.g3\n") != NULL);
  CHECK(strstr(text, "destroy cond#2\n") != NULL && strstr(text, "signal cond#2.g2") != NULL);
  tl_sched_result_free(&r);
}

typedef struct want {
  int which;
  const char *says;
} want;

static int stop_when_says(void *ctx, const tl_sched_result *r) {
  return r->outcome == TL_SCHED_VIOLATION && sc_says(r, (const char *)ctx);
}

static void test_misuse(void) {
  static const want wants[] = {
      {1, "t0 \"main\" uses mutex#1 at "},
      {1, "after its destroy at step 1 (lock)"},
      {2, "after its destroy"},
      {3, "destroys mutex#1 at "},
      {3, "while t0 \"main\" holds it"},
      {4, "destroys cond#2 at "},
      {4, "while t1 waits on it"},
      {5, "whose memory was overwritten (memset?) while t0 \"main\" holds it"},
      {6, "t1 unlocks mutex#1 at "},
      {6, "which t0 \"main\" holds"},
      {7, "which is not locked"},
      {8, "joins an unknown thread"},
      {9, "joins t1, which was joined already"},
      {10, "waits on cond#2 at "},
      {10, "which it does not hold"},
      {11, "destroys mutex#1 at "},
      {11, "again (destroyed at step 1)"},
      {12, "uses mutex#1 at "},
      {12, "as a cond"},
  };
  for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
    lc_case = wants[i].which;
    tl_sched_config c = sc_config(lifecycle, NULL);
    tl_sched_explore_stats st;
    CHECK(tl_sched_explore(&c, 10000, stop_when_says, (void *)wants[i].says, &st) == 0);
    if (st.stopped != 1) printf("    case %d: no run says \"%s\"\n", wants[i].which, wants[i].says);
    CHECK(st.stopped == 1);
  }
}

void suite_lifecycle(void) {
  sc_run("lifecycle: memset, destroy, init again: new generations, all schedules pass",
         test_good_life);
  sc_run("lifecycle: every misuse is a violation that names it, the run stops cleanly",
         test_misuse);
  sc_run("lifecycle: after the misuses, the good life still passes", test_good_life);
}
