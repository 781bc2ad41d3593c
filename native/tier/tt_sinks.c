/*
 * The two event sinks: an in-memory buffer (a harness reads it after the run) and an
 * NDJSON file (a free run's log, one JSON object per line).
 *
 * Neither takes a lock: the buffer reserves its slot with one atomic fetch-add; the file
 * sink formats the line on the caller's stack and appends it (or the thread's buffer of
 * whole lines) with one write(2) on a descriptor opened O_APPEND, so lines never
 * interleave within a line. Lines of different threads may reach the file out of seq
 * order: readers sort by seq. A buffered sink's per-thread buffers hang off the sink in a
 * list pushed with compare-and-swap (each thread pushes its own once) and are freed by
 * close, which must run after the last emitter stopped.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tt.h"

static void mem_write(void *ctx, const tt_event *ev) {
  tt_mem_sink *m = ctx;
  size_t i = atomic_fetch_add(&m->n, 1);
  if (i < m->cap) {
    m->events[i] = *ev;
    atomic_fetch_add(&m->done, 1);
  }
}

int tt_mem_sink_init(tt_mem_sink *m, size_t cap) {
  m->events = calloc(cap > 0 ? cap : 1, sizeof *m->events);
  m->cap = m->events != NULL ? cap : 0;
  atomic_init(&m->n, 0);
  atomic_init(&m->done, 0);
  return m->events != NULL ? 0 : -1;
}

void tt_mem_sink_free(tt_mem_sink *m) {
  free(m->events);
  m->events = NULL;
  m->cap = 0;
}

tt_sink tt_mem_sink_as_sink(tt_mem_sink *m) { return (tt_sink){m, mem_write}; }

size_t tt_mem_sink_count(tt_mem_sink *m) {
  size_t n = atomic_load(&m->n);
  return n < m->cap ? n : m->cap;
}

static int by_seq(const void *a, const void *b) {
  const tt_event *x = a, *y = b;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

void tt_mem_sink_sort(tt_mem_sink *m) {
  qsort(m->events, tt_mem_sink_count(m), sizeof *m->events, by_seq);
}

/* One thread's buffer of whole lines (buffered sinks). */
typedef struct tt_ndjson_buffer {
  uint32_t tid;
  size_t len;
  struct tt_ndjson_buffer *next;
  char data[];
} tt_ndjson_buffer;

static atomic_uint_fast64_t next_sink_id = 1;
/* this thread's buffer for the sink numbered my_sink_id (ids never repeat, so a cache left
 * by a closed sink is never taken for a new one at the same address) */
static _Thread_local uint64_t my_sink_id;
static _Thread_local tt_ndjson_buffer *my_buffer;

static void append(tt_ndjson_sink *s, const char *bytes, size_t n) {
  if (n == 0) return;
  ssize_t w = write(s->fd, bytes, n);
  if (w != (ssize_t)n) atomic_fetch_add(&s->errors, 1);
}

/* This thread's buffer for s: the cached one, one it pushed earlier, or a new one. */
static tt_ndjson_buffer *buffer_of(tt_ndjson_sink *s) {
  if (my_sink_id == s->id) return my_buffer;
  uint32_t tid = tt_log_thread_id();
  tt_ndjson_buffer *b = atomic_load(&s->buffers);
  while (b != NULL && b->tid != tid) b = b->next;
  if (b == NULL) {
    b = malloc(sizeof *b + s->buffer_bytes);
    if (b == NULL) return NULL;
    *b = (tt_ndjson_buffer){tid, 0, atomic_load(&s->buffers)};
    while (!atomic_compare_exchange_weak(&s->buffers, &b->next, b)) {}
  }
  my_sink_id = s->id;
  return my_buffer = b;
}

static void ndjson_write(void *ctx, const tt_event *ev) {
  tt_ndjson_sink *s = ctx;
  char line[TT_EVENT_JSON_MAX + 1];
  size_t n = tt_event_json(ev, line, TT_EVENT_JSON_MAX);
  line[n++] = '\n';
  atomic_fetch_add(&s->lines, 1);
  tt_ndjson_buffer *b = s->buffer_bytes > 0 ? buffer_of(s) : NULL;
  if (b == NULL) {
    append(s, line, n);
    return;
  }
  if (b->len + n > s->buffer_bytes) {
    append(s, b->data, b->len);
    b->len = 0;
  }
  memcpy(b->data + b->len, line, n);
  b->len += n;
}

int tt_ndjson_sink_open(tt_ndjson_sink *s, const char *path, size_t buffer_bytes) {
  atomic_init(&s->lines, 0);
  atomic_init(&s->errors, 0);
  atomic_init(&s->buffers, NULL);
  s->id = atomic_fetch_add(&next_sink_id, 1);
  s->buffer_bytes = buffer_bytes == 0 ? 0 : buffer_bytes < 4096 ? 4096 : buffer_bytes;
  s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  return s->fd >= 0 ? 0 : -1;
}

int tt_ndjson_sink_close(tt_ndjson_sink *s) {
  for (tt_ndjson_buffer *b = atomic_load(&s->buffers), *next; b != NULL; b = next) {
    next = b->next;
    if (s->fd >= 0) append(s, b->data, b->len);
    free(b);
  }
  atomic_store(&s->buffers, NULL);
  int rc = atomic_load(&s->errors) == 0 ? 0 : -1;
  if (s->fd >= 0 && close(s->fd) != 0) rc = -1;
  s->fd = -1;
  return rc;
}

tt_sink tt_ndjson_sink_as_sink(tt_ndjson_sink *s) { return (tt_sink){s, ndjson_write}; }
