/*
 * The two event sinks: an in-memory buffer (a harness reads it after the run) and an
 * NDJSON file (a free run's log, one JSON object per line).
 *
 * Neither takes a lock: the buffer reserves its slot with one atomic fetch-add; the file
 * sink formats the line on the caller's stack and appends it with one write(2) on a
 * descriptor opened O_APPEND, so concurrent lines never interleave within a line. Lines
 * of different threads may reach the file out of seq order: readers sort by seq.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

static void ndjson_write(void *ctx, const tt_event *ev) {
  tt_ndjson_sink *s = ctx;
  char line[TT_EVENT_JSON_MAX + 1];
  size_t n = tt_event_json(ev, line, TT_EVENT_JSON_MAX);
  line[n++] = '\n';
  ssize_t w = write(s->fd, line, n);
  if (w != (ssize_t)n)
    atomic_fetch_add(&s->errors, 1);
  else
    atomic_fetch_add(&s->lines, 1);
}

int tt_ndjson_sink_open(tt_ndjson_sink *s, const char *path) {
  atomic_init(&s->lines, 0);
  atomic_init(&s->errors, 0);
  s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  return s->fd >= 0 ? 0 : -1;
}

int tt_ndjson_sink_close(tt_ndjson_sink *s) {
  int rc = atomic_load(&s->errors) == 0 ? 0 : -1;
  if (s->fd >= 0 && close(s->fd) != 0) rc = -1;
  s->fd = -1;
  return rc;
}

tt_sink tt_ndjson_sink_as_sink(tt_ndjson_sink *s) { return (tt_sink){s, ndjson_write}; }
