/*
 * Parallel host memcpy (see par_copy.h). Threads are started per call: a staging chunk
 * is tens of MiB, so starting a few threads costs microseconds against milliseconds of
 * copying, and no pool has to outlive or be shut down with the engine.
 */
#include "par_copy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Below this, one thread: thread start-up would cost more than it saves. */
#define PAR_COPY_MIN_SLICE (2u << 20)

typedef struct slice {
  unsigned char *dst;
  const unsigned char *src;
  size_t n;
} slice;

static void *copy_slice(void *arg) {
  slice *s = arg;
  memcpy(s->dst, s->src, s->n);
  return NULL;
}

void par_copy(void *dst, const void *src, size_t n, int threads) {
  if (threads > PAR_COPY_MAX_THREADS) threads = PAR_COPY_MAX_THREADS;
  if (threads > 1 && n / (size_t)threads < PAR_COPY_MIN_SLICE) {
    threads = (int)(n / PAR_COPY_MIN_SLICE);
  }
  if (threads <= 1) {
    memcpy(dst, src, n);
    return;
  }
  slice s[PAR_COPY_MAX_THREADS];
  pthread_t th[PAR_COPY_MAX_THREADS];
  int started[PAR_COPY_MAX_THREADS] = {0};
  const size_t per = (n / (size_t)threads + 63) & ~(size_t)63; /* cache-line slices */
  for (int i = 0; i < threads; i++) {
    size_t off = per * (size_t)i;
    size_t len = off >= n ? 0 : (n - off < per ? n - off : per);
    s[i] = (slice){(unsigned char *)dst + off, (const unsigned char *)src + off, len};
  }
  for (int i = 1; i < threads; i++) { /* slice 0 is the calling thread's */
    started[i] = pthread_create(&th[i], NULL, copy_slice, &s[i]) == 0;
    if (!started[i]) copy_slice(&s[i]);
  }
  copy_slice(&s[0]);
  for (int i = 1; i < threads; i++) {
    if (started[i]) pthread_join(th[i], NULL);
  }
}

int par_copy_threads_from_env(void) {
  const char *v = getenv("TIERLAB_COPY_THREADS");
  if (v == NULL || *v == '\0') return 4;
  int t = atoi(v);
  if (t < 1) return 1;
  return t > PAR_COPY_MAX_THREADS ? PAR_COPY_MAX_THREADS : t;
}
