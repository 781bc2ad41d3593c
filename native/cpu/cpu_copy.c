/*
 * The CPU backend's copy threads: asynchronous uploads from RAM copies land here.
 *
 * Why threads: an upload from a RAM copy returns at once (tierlab.h), so the copy runs
 * elsewhere, several at a time, as a GPU's copy engines do; the caller (the tier's
 * uploader) goes on queueing the next tensors meanwhile.
 * A delay (TIERLAB_CPU_COPY_DELAY_US) makes the bus slow on purpose: the oracle's
 * slow-copy runs need groups that really meet tensors still on their way.
 * Invariants: jobs start in FIFO order; a job's tensor turns ready (under mu) before
 * tl_upload_done reports it, and the job is not touched after that (the tensor may be
 * freed from then on); stop lets every queued job finish before the threads leave.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_backend.h"

static int threads_from_env(void) {
  const char *v = getenv("TIERLAB_CPU_COPY_THREADS");
  if (v == NULL || *v == '\0') return CPU_COPY_THREADS_DEFAULT;
  int t = atoi(v);
  if (t < 1) return 1;
  return t > CPU_COPY_THREADS_MAX ? CPU_COPY_THREADS_MAX : t;
}

long cpu_delay_from_env(const char *name) {
  const char *v = getenv(name);
  long us = v == NULL ? 0 : atol(v);
  return us < 0 ? 0 : us > CPU_DELAY_MAX_US ? CPU_DELAY_MAX_US : us;
}

void cpu_sleep_us(long us) {
  struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {}
}

static void *copy_main(void *arg) {
  cpu_copy_pool *pool = arg;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (pool->head == NULL && !pool->stop) pthread_cond_wait(&pool->work, &pool->mu);
    cpu_tensor *job = pool->head;
    if (job == NULL) break; /* stopping, nothing left */
    pool->head = job->next;
    if (pool->head == NULL) pool->tail = NULL;
    pthread_mutex_unlock(&pool->mu);
    if (pool->delay_us > 0) cpu_sleep_us(pool->delay_us);
    memcpy(job->w, job->src, job->span_bytes);
    tl_tensor *t = job->t;
    pthread_mutex_lock(&pool->mu);
    job->ready = 1;
    pthread_cond_broadcast(&pool->ready);
    pthread_mutex_unlock(&pool->mu);
    tl_upload_done(t, TL_OK, NULL);
    pthread_mutex_lock(&pool->mu);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

int cpu_copy_start(cpu_copy_pool *pool, char *err, size_t cap) {
  memset(pool, 0, sizeof *pool);
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->ready, NULL);
  pool->inited = 1;
  pool->delay_us = cpu_delay_from_env("TIERLAB_CPU_COPY_DELAY_US");
  const int want = threads_from_env();
  for (int i = 0; i < want; i++) {
    int rc = pthread_create(&pool->threads[i], NULL, copy_main, pool);
    if (rc != 0) {
      return tl_fail(err, cap, TL_E_INTERNAL, "cpu backend: copy thread: pthread_create: %s",
                     strerror(rc));
    }
    pool->nthreads = i + 1;
  }
  return TL_OK;
}

void cpu_copy_queue(cpu_copy_pool *pool, cpu_tensor *job) {
  job->next = NULL;
  pthread_mutex_lock(&pool->mu);
  if (pool->tail != NULL) {
    pool->tail->next = job;
  } else {
    pool->head = job;
  }
  pool->tail = job;
  pthread_cond_signal(&pool->work);
  pthread_mutex_unlock(&pool->mu);
}

void cpu_copy_wait_ready(cpu_copy_pool *pool, const cpu_tensor *const *uses, int n) {
  pthread_mutex_lock(&pool->mu);
  for (int i = 0; i < n; i++) {
    while (!uses[i]->ready) pthread_cond_wait(&pool->ready, &pool->mu);
  }
  pthread_mutex_unlock(&pool->mu);
}

void cpu_copy_stop(cpu_copy_pool *pool) {
  if (!pool->inited) return;
  pthread_mutex_lock(&pool->mu);
  pool->stop = 1;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mu);
  for (int i = 0; i < pool->nthreads; i++) pthread_join(pool->threads[i], NULL);
  pool->nthreads = 0;
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->ready);
  pthread_mutex_destroy(&pool->mu);
  pool->inited = 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* memcpy between two buffers touched beforehand: on this backend host memory is the
 * device's, so pinned and pageable are the same copy. */
int cpu_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                       char *err, size_t cap) {
  (void)b;
  (void)dev;
  (void)pinned;
  unsigned char *src = malloc((size_t)bytes), *dst = malloc((size_t)bytes);
  if (src == NULL || dst == NULL) {
    free(src);
    free(dst);
    return tl_fail(err, cap, TL_E_OOM, "cpu backend: host out of memory for %llu bytes",
                   (unsigned long long)bytes);
  }
  memset(src, 1, (size_t)bytes);
  memcpy(dst, src, (size_t)bytes); /* the warm-up touches dst */
  double t0 = now_s();
  for (int i = 0; i < reps; i++) {
    memcpy(dst, src, (size_t)bytes);
    __asm__ volatile("" : : "r"(dst) : "memory"); /* the copy must not be optimised away */
  }
  double dt = now_s() - t0;
  *gbps = (double)bytes * reps / (dt > 0 ? dt : 1e-9) / 1e9;
  free(src);
  free(dst);
  return TL_OK;
}
