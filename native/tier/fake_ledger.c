/*
 * The fake backend's ledger: objects, call counts, faults, violations and events.
 *
 * Objects are never freed while the fake lives (a dead one stays, marked, so a tier's
 * use after free is a recorded violation, not undefined behaviour) until
 * fb_reclaim_dead drops them. Faults: a one-shot arm per site (the call numbered nth)
 * and the hook's answer; the hook runs outside the fake's lock, so a hook that sleeps or
 * yields does not serialize other backend calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

int fb_enter(fb_fake *f, int site, int dev) {
  pthread_mutex_lock(&f->mx);
  uint64_t nth = f->calls[site]++;
  int fail = f->armed[site] >= 0 && (uint64_t)f->armed[site] == nth;
  if (fail) f->armed[site] = -1;
  fb_hook hook = f->hook;
  void *arg = f->hook_arg;
  pthread_mutex_unlock(&f->mx);
  if (hook != NULL && hook(arg, site, nth, dev) != 0) fail = 1;
  if (fail) {
    pthread_mutex_lock(&f->mx);
    f->l.faults++;
    fb_event(f, TT_EV_BE_FAULT, NULL, dev, site, (int64_t)nth);
    pthread_mutex_unlock(&f->mx);
  }
  return fail;
}

fb_obj *fb_obj_new(fb_fake *f, int kind, int dev, int layer, int eid, int part, uint64_t bytes) {
  fb_obj *o = calloc(1, sizeof *o);
  if (o == NULL) return NULL;
  *o = (fb_obj){FB_MAGIC, kind, ++f->next_id, dev, layer, eid,  part,   0,
                0,        -1,   bytes,        1,   0,     NULL, f->objs};
  f->objs = o;
  return o;
}

/* Handles are our own records, kept until fb_reclaim_dead: the magic tells a handle of
 * another kind (or a record already reclaimed and reused) from ours. */
fb_obj *fb_obj_of(fb_fake *f, void *handle, int kind, const char *what) {
  fb_obj *o = handle;
  if (o != NULL && o->magic == FB_MAGIC && o->kind == kind) return o;
  fb_violation(f, &f->l.use_after_free, "%s: %p is not a handle of this backend", what, handle);
  return NULL;
}

/* be_violation's value: 1 double free, 2 use after free, 3 free under an open group,
 * 4 the wrong expert's bytes, 0 another misuse */
static int violation_code(const fb_fake *f, const uint64_t *counter) {
  if (counter == &f->l.double_frees) return 1;
  if (counter == &f->l.use_after_free) return 2;
  if (counter == &f->l.free_in_group) return 3;
  if (counter == &f->l.wrong_bytes) return 4;
  return 0;
}

void fb_violation(fb_fake *f, uint64_t *counter, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (counter != NULL) (*counter)++;
  if (f->l.violations++ == 0)
    snprintf(f->l.first_violation, sizeof f->l.first_violation, "%s", msg);
  fb_event(f, TT_EV_BE_VIOLATION, NULL, -1, violation_code(f, counter), 0);
}

void fb_event(fb_fake *f, int kind, const fb_obj *o, int dev, int64_t value, int64_t value2) {
  if (f->log == NULL) return;
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_BACKEND, kind, TT_LK_BACKEND);
  ev.dev = dev;
  if (o != NULL) {
    ev.id = o->id;
    ev.layer = o->layer;
    ev.eid = o->eid;
    ev.part = o->part;
    if (dev < 0) ev.dev = o->dev;
  }
  ev.value = value;
  ev.value2 = value2;
  tt_log_emit(f->log, &ev);
}

void fb_event_at(fb_fake *f, int kind, uint64_t id, int dev, int layer, int eid, int part,
                 int64_t value, int64_t value2) {
  if (f->log == NULL) return;
  tt_event ev;
  tt_event_clear(&ev, TT_SRC_BACKEND, kind, TT_LK_BACKEND);
  ev.id = id;
  ev.dev = dev;
  ev.layer = layer;
  ev.eid = eid;
  ev.part = part;
  ev.value = value;
  ev.value2 = value2;
  tt_log_emit(f->log, &ev);
}

uint64_t fb_id_of(const void *handle, int kind) {
  const fb_obj *o = handle;
  if (o == NULL || o->magic != FB_MAGIC) return 0;
  if (o->kind == kind || (kind == FB_OBJ_TENSOR && o->kind == FB_OBJ_DENSE)) return o->id;
  return 0;
}

fb_fake *fb_create(const fb_config *cfg, tt_log *log) {
  if (cfg == NULL || cfg->devices < 1 || cfg->devices > TT_MAX_DEVICES) return NULL;
  fb_fake *f = calloc(1, sizeof *f);
  if (f == NULL) return NULL;
  f->cfg = *cfg;
  for (int d = 0; d < TT_MAX_DEVICES; d++)
    if (f->cfg.capacity[d] == 0) f->cfg.capacity[d] = 1ull << 40;
  f->log = log;
  for (int s = 0; s < FB_SITE_COUNT; s++) f->armed[s] = -1;
  if (pthread_mutex_init(&f->mx, NULL) != 0) {
    free(f);
    return NULL;
  }
  return f;
}

static void drop(fb_obj *o) {
  if (o->kind == FB_OBJ_HOST && o->alive) free(o->mem);
  o->magic = 0;
  free(o);
}

void fb_destroy(fb_fake *f) {
  if (f == NULL) return;
  for (fb_obj *o = f->objs, *next; o != NULL; o = next) {
    next = o->next;
    drop(o);
  }
  for (int d = 0; d < TT_MAX_DEVICES; d++) free(f->group[d].x);
  pthread_mutex_destroy(&f->mx);
  free(f);
}

void fb_reclaim_dead(fb_fake *f) {
  pthread_mutex_lock(&f->mx);
  fb_obj **at = &f->objs;
  while (*at != NULL) {
    fb_obj *o = *at;
    if (!o->alive) {
      *at = o->next;
      drop(o);
    } else {
      at = &o->next;
    }
  }
  pthread_mutex_unlock(&f->mx);
}

void fb_set_hook(fb_fake *f, fb_hook hook, void *arg) {
  pthread_mutex_lock(&f->mx);
  f->hook = hook;
  f->hook_arg = arg;
  pthread_mutex_unlock(&f->mx);
}

void fb_arm(fb_fake *f, int site, uint64_t nth) {
  pthread_mutex_lock(&f->mx);
  if (site >= 0 && site < FB_SITE_COUNT) f->armed[site] = (int64_t)nth;
  pthread_mutex_unlock(&f->mx);
}

void fb_disarm(fb_fake *f, int site) { fb_arm(f, site, (uint64_t)-1); }

void fb_ledger_get(fb_fake *f, fb_ledger *out) {
  pthread_mutex_lock(&f->mx);
  *out = f->l;
  pthread_mutex_unlock(&f->mx);
}

void fb_expert_output(int layer, int eid, const float *x, float *y, int hidden) {
  for (int h = 0; h < hidden; h++) y[h] = x[h] * (float)(eid + 1) + (float)layer * 0.25f;
}

void fb_dense_output(int index, int rows, int cols, const float *x, float *y) {
  for (int r = 0; r < rows; r++) y[r] = x[r % cols] * (float)(index + 1);
}
