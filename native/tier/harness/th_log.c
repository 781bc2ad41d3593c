/*
 * The harness's record log: the driver's engine events and the tt_log sink (the tier's
 * and the fake backend's events), each record stamped with the managed thread that wrote
 * it and its place in the scheduler's trace (tl_sched_current), so the two streams merge
 * exactly after the run.
 *
 * Invariants: appending never blocks and never reaches a scheduling point (one OS thread
 * runs every managed thread; a record is written whole before the next can start); a full
 * fixed log (fresh-process mode) counts what it drops, and a run that dropped anything is
 * reported as an error, never judged on half a log. Heat events are followed by the heat
 * file's bytes at that moment (a blob record), which the reference needs to replay init
 * and to compare what shutdown wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/tl_sched.h"
#include "th_internal.h"

static int grow(th_log *l) {
  if (l->shared) return -1;
  size_t cap = l->cap > 0 ? l->cap * 2 : 4096;
  int32_t *r = realloc(l->rec, cap * TH_REC_WORDS * sizeof *r);
  if (r == NULL) return -1;
  l->rec = r;
  l->cap = cap;
  return 0;
}

int32_t *th_log_record(th_log *l, int cls) {
  if (l->c->n == l->cap && grow(l) != 0) {
    l->c->dropped++;
    return NULL;
  }
  int32_t *w = &l->rec[l->c->n * TH_REC_WORDS];
  memset(w, 0, TH_REC_WORDS * sizeof *w);
  unsigned tpos = 0;
  int tid = tl_sched_current(&tpos);
  w[0] = cls;
  w[TH_W_TID] = tid;
  w[TH_W_TPOS] = (int32_t)tpos;
  l->c->n++;
  return w;
}

void th_log_engine(th_log *l, int kind, int a, int b, int c, int d, int e, int f, int g) {
  int32_t *w = th_log_record(l, TH_CLASS_ENGINE);
  if (w == NULL) return;
  int tid = w[TH_W_TID];
  w[1] = kind;
  w[2] = tid;
  w[3] = a;
  w[4] = b;
  w[5] = c;
  w[6] = d;
  w[7] = e;
  w[8] = f;
  w[9] = g;
}

static void put64(int32_t *w, int at, int64_t v) {
  w[at] = (int32_t)(uint32_t)((uint64_t)v & 0xffffffffu);
  w[at + 1] = (int32_t)(uint32_t)((uint64_t)v >> 32);
}

static void blob(th_log *l) {
  FILE *f = fopen(l->heat_path, "rb");
  int32_t *w = th_log_record(l, TH_CLASS_BLOB);
  if (w == NULL) {
    if (f != NULL) fclose(f);
    return;
  }
  size_t at = l->c->blob_n, n = 0;
  w[1] = (int32_t)at;
  w[2] = -1; /* no file */
  if (f == NULL) return;
  for (;;) {
    if (at + n == l->blob_cap) {
      size_t cap = l->blob_cap > 0 ? l->blob_cap * 2 : 4096;
      uint8_t *b = l->shared ? NULL : realloc(l->blob, cap);
      if (b == NULL) {
        l->c->dropped++; /* a file longer than the room: the run is not judged */
        break;
      }
      l->blob = b;
      l->blob_cap = cap;
    }
    size_t got = fread(l->blob + at + n, 1, l->blob_cap - at - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  w[2] = (int32_t)n;
  l->c->blob_n = at + n;
}

static void sink_write(void *ctx, const tt_event *ev) {
  th_log *l = ctx;
  int32_t *w = th_log_record(l, TH_CLASS_EVENT);
  if (w == NULL) return;
  w[TH_W_SRC] = ev->src;
  w[TH_W_KIND] = ev->kind;
  w[TH_W_LK] = ev->lk;
  w[TH_W_FN] = ev->fn;
  w[TH_W_LAYER] = ev->layer;
  w[TH_W_EID] = ev->eid;
  w[TH_W_DEV] = ev->dev;
  w[TH_W_PART] = ev->part;
  w[TH_W_VLAYER] = ev->vlayer;
  w[TH_W_VEID] = ev->veid;
  put64(w, TH_W_VALUE, ev->value);
  put64(w, TH_W_VALUE2, ev->value2);
  w[TH_W_INFLIGHT] = ev->inflight;
  w[TH_W_QN] = ev->qn;
  w[TH_W_WAITERS] = ev->waiters;
  put64(w, TH_W_TICK, (int64_t)ev->tick);
  put64(w, TH_W_USED, ev->used);
  put64(w, TH_W_BUDGET, ev->budget);
  w[TH_W_HEAT] = (int32_t)ev->heat;
  w[TH_W_FLAGS] = (int32_t)ev->flags;
  w[TH_W_VFLAGS] = (int32_t)ev->vflags;
  w[TH_W_ID] = (int32_t)ev->id;
  w[TH_W_SEC] = (int32_t)ev->sec;
  w[TH_W_GATE] =
      (ev->life & 0xff) | (ev->live & 0xff) << 8 | (ev->want_x & 0xff) << 16 | (ev->x & 0xff) << 24;
  if (l->heat_path != NULL && (ev->kind == TT_EV_HEAT_LOADED || ev->kind == TT_EV_HEAT_SAVED))
    blob(l);
}

tt_sink th_log_sink(th_log *l) { return (tt_sink){l, sink_write}; }
