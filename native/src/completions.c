/*
 * The completion queue (see completions.h) and its two ABI calls: take (never waits)
 * and wait (until enough is queued, the timeout, or destroy). A push wakes the waiters
 * only once the queue holds what the least patient of them asked for (wake_at), so a
 * waiter for n completions is woken once, not n times.
 */
#include "completions.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

#define CQ_FIRST_CAP 64
#define CQ_MAX_WAIT_MS 60000

int tl_cq_init(tl_cq *q) {
  memset(q, 0, sizeof *q);
  q->items = malloc(CQ_FIRST_CAP * sizeof *q->items);
  if (q->items == NULL) return -1;
  q->cap = CQ_FIRST_CAP;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&q->cv, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&q->mu, NULL);
  return 0;
}

/* With q->mu held: room for one more entry (doubles the ring, keeping the order). */
static int make_room(tl_cq *q) {
  if (q->count < q->cap) return 0;
  tl_completion *n = malloc(2 * q->cap * sizeof *n);
  if (n == NULL) return -1;
  for (size_t i = 0; i < q->count; i++) n[i] = q->items[(q->head + i) % q->cap];
  free(q->items);
  q->items = n;
  q->head = 0;
  q->cap *= 2;
  return 0;
}

void tl_cq_push(tl_cq *q, uint64_t tag, int kind, int status, int dev, const char *msg) {
  pthread_mutex_lock(&q->mu);
  if (make_room(q) != 0) {
    q->lost++;
  } else {
    tl_completion *c = &q->items[(q->head + q->count) % q->cap];
    memset(c, 0, sizeof *c);
    c->tag = tag;
    c->done_ns = tl_clock_ns();
    c->kind = kind;
    c->status = status;
    c->dev = dev;
    if (msg != NULL) {
      strncpy(c->message, msg, TL_COMPLETION_MESSAGE - 1);
    }
    q->count++;
  }
  if (q->nwaiting > 0 && (q->count >= q->wake_at || q->lost > 0)) {
    pthread_cond_broadcast(&q->cv);
  }
  pthread_mutex_unlock(&q->mu);
}

void tl_cq_close(tl_cq *q) {
  pthread_mutex_lock(&q->mu);
  q->closed = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

void tl_cq_destroy(tl_cq *q) {
  if (q->items == NULL) return; /* never initialised */
  pthread_mutex_destroy(&q->mu);
  pthread_cond_destroy(&q->cv);
  free(q->items);
  memset(q, 0, sizeof *q);
}

TL_API uint64_t tl_clock_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

TL_API int tl_completions_take(tl_engine *eng, tl_completion *out, int max, int *n, char *err,
                               size_t err_cap) {
  static const char *const FN = "tl_completions_take";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if (n == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: n is NULL", FN);
  } else if (out == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: out is NULL", FN);
  } else if (max < 1) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: max must be at least 1 (got %d)", FN, max);
  } else {
    tl_cq *q = &eng->cq;
    pthread_mutex_lock(&q->mu);
    int k = 0;
    for (; k < max && q->count > 0; k++) {
      out[k] = q->items[q->head];
      q->head = (q->head + 1) % q->cap;
      q->count--;
    }
    *n = k;
    if (q->lost > 0) {
      rc = tl_fail(err, err_cap, TL_E_OOM, "%s: %llu completions were lost (host out of memory)",
                   FN, (unsigned long long)q->lost);
      q->lost = 0;
    }
    pthread_mutex_unlock(&q->mu);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_completions_wait(tl_engine *eng, int min_ready, int timeout_ms, int *ready, char *err,
                               size_t err_cap) {
  static const char *const FN = "tl_completions_wait";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if (ready == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: ready is NULL", FN);
  } else if (min_ready < 1) {
    rc =
        tl_fail(err, err_cap, TL_E_ARG, "%s: min_ready must be at least 1 (got %d)", FN, min_ready);
  } else if (timeout_ms < 0 || timeout_ms > CQ_MAX_WAIT_MS) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: timeout_ms must be in 0..%d (got %d)", FN,
                 CQ_MAX_WAIT_MS, timeout_ms);
  } else {
    tl_cq *q = &eng->cq;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->mu);
    const size_t want = (size_t)min_ready;
    q->wake_at = q->nwaiting == 0 || want < q->wake_at ? want : q->wake_at;
    q->nwaiting++;
    int timed_out = 0;
    while (q->count < want && q->lost == 0 && !q->closed && !timed_out) {
      timed_out = pthread_cond_timedwait(&q->cv, &q->mu, &until) != 0;
    }
    /* the others' thresholds are not kept: wake them on every push from now on */
    q->nwaiting--;
    q->wake_at = 1;
    *ready = (int)q->count;
    if (q->closed) {
      rc = tl_fail(err, err_cap, TL_E_STATE, "%s: the engine is being destroyed", FN);
    }
    pthread_mutex_unlock(&q->mu);
  }
  tl_engine_leave(eng);
  return rc;
}
