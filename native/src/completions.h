/*
 * The engine's completion queue: finished operations that asked for a completion
 * (tag != 0), queued by whatever thread saw them finish, taken by the caller in batches.
 *
 * Invariants: FIFO; a push never blocks on the taker and never fails silently (an entry
 * that finds no host memory is counted in `lost`, and the next take reports it);
 * closing wakes every waiter and makes later waits return at once; the queue's lock is
 * taken after the engine's mu, never before it.
 */
#ifndef TIERLAB_COMPLETIONS_H
#define TIERLAB_COMPLETIONS_H

#include <pthread.h>

#include "../include/tierlab.h"

typedef struct tl_cq {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* CLOCK_MONOTONIC: something queued, or closed */
  tl_completion *items;
  size_t head, count, cap; /* a ring of cap entries */
  int closed;
  uint64_t lost;
  int nwaiting; /* threads in tl_completions_wait */
  size_t wake_at; /* push wakes them once count reaches this */
} tl_cq;

int tl_cq_init(tl_cq *q); /* 0, or -1 when out of memory */
void tl_cq_push(tl_cq *q, uint64_t tag, int kind, int status, int dev, const char *msg);
void tl_cq_close(tl_cq *q);
void tl_cq_destroy(tl_cq *q);

#endif
