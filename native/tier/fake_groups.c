/*
 * The fake backend's groups, trunk GEMVs and environment: issue copies the input and
 * marks every tensor of the group as read (a free of one is a violation until take),
 * take computes each row from what its tensors hold; plus host arrays, lent RAM copies,
 * the init faults of the operating system (sync objects, thread start) and shutdown.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

/* Opens dev's group (mx held): 0, or -1 when something is wrong (a violation). */
static int open_group(fb_fake *f, int dev, int n, void *const *parts[3], const float *x,
                      int hidden) {
  fb_group *g = &f->group[dev];
  if (g->open) {
    fb_violation(f, NULL, "a second group on device %d while one is open", dev);
    return -1;
  }
  if (g->x == NULL || g->hidden != hidden) {
    free(g->x);
    g->x = malloc((size_t)TT_GROUP_ROWS * (size_t)hidden * sizeof *g->x);
    g->hidden = g->x != NULL ? hidden : 0;
    if (g->x == NULL) return -1;
  }
  for (int r = 0; r < n; r++)
    for (int p = 0; p < 3; p++) {
      fb_obj *t = fb_obj_of(f, parts[p][r], FB_OBJ_TENSOR, "issue");
      if (t == NULL) return -1;
      if (!t->alive)
        fb_violation(f, &f->l.use_after_free, "group on device %d reads freed L%dE%d part %d", dev,
                     t->layer, t->eid, p);
      g->rows[r][p] = t;
    }
  for (int r = 0; r < n; r++)
    for (int p = 0; p < 3; p++) g->rows[r][p]->in_group++;
  memcpy(g->x, x, (size_t)n * (size_t)hidden * sizeof *x);
  g->open = 1;
  g->n = n;
  return 0;
}

/* One event per row asked for: the gate tensor's id and expert, the up and down ids. */
static void log_rows(fb_fake *f, int dev, int n, void *const *parts[3]) {
  for (int r = 0; r < n; r++) {
    const fb_obj *g = parts[0][r];
    int known = fb_id_of(g, FB_OBJ_TENSOR) != 0;
    fb_event_at(f, TT_EV_BE_GROUP_ROW, fb_id_of(g, FB_OBJ_TENSOR), dev, known ? g->layer : -1,
                known ? g->eid : -1, r, (int64_t)fb_id_of(parts[1][r], FB_OBJ_TENSOR),
                (int64_t)fb_id_of(parts[2][r], FB_OBJ_TENSOR));
  }
}

int fb_issue(void *ctx, int dev, int n, void *const *gate, void *const *up, void *const *down,
             const float *x, int hidden) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_ISSUE, dev);
  void *const *parts[3] = {gate, up, down};
  pthread_mutex_lock(&f->mx);
  log_rows(f, dev, n, parts);
  int rc = fail ? -1 : open_group(f, dev, n, parts, x, hidden);
  if (rc == 0) {
    f->l.issues++;
    f->l.groups_open++;
  }
  fb_event(f, TT_EV_BE_GROUP_OPEN, NULL, dev, n, rc == 0);
  pthread_mutex_unlock(&f->mx);
  return rc == 0 ? 0 : 1;
}

/* Closes dev's group (mx held); computes its rows into y unless y is NULL. */
static void close_group(fb_fake *f, int dev, float *y) {
  fb_group *g = &f->group[dev];
  for (int r = 0; r < g->n; r++) {
    const fb_obj *gate = g->rows[r][0];
    if (y != NULL)
      fb_expert_output(gate->layer, gate->eid, g->x + (size_t)r * (size_t)g->hidden,
                       y + (size_t)r * (size_t)g->hidden, g->hidden);
    for (int p = 0; p < 3; p++) g->rows[r][p]->in_group--;
  }
  g->open = 0;
  g->n = 0;
  f->l.groups_open--;
}

int fb_take(void *ctx, int dev, int n, float *y, int hidden) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_TAKE, dev);
  pthread_mutex_lock(&f->mx);
  fb_group *g = &f->group[dev];
  int rc = 1;
  if (!g->open || g->n != n || g->hidden != hidden) {
    fb_event(f, TT_EV_BE_GROUP_TAKE, NULL, dev, n, -1);
    fb_violation(f, NULL, "take on device %d of %d rows: the open group has %d", dev, n,
                 g->open ? g->n : 0);
  } else {
    close_group(f, dev, fail ? NULL : y);
    f->l.takes++;
    rc = fail;
    fb_event(f, TT_EV_BE_GROUP_TAKE, NULL, dev, n, !fail);
  }
  pthread_mutex_unlock(&f->mx);
  return rc;
}

void *fb_dense_upload(void *ctx, int dev, int index, const tt_trunk_offer *o) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_DENSE_UPLOAD, dev);
  pthread_mutex_lock(&f->mx);
  fb_obj *t =
      fail ? NULL : fb_device_alloc(f, FB_OBJ_DENSE, dev, o->layer, -1, -1, tt_trunk_charge(o));
  if (t != NULL) {
    t->rows = o->rows > 0 ? o->rows : 1;
    t->cols = o->cols > 0 ? o->cols : 1;
    t->index = index;
    f->l.dense_uploads++;
    f->l.dense_live++;
  }
  /* a trunk matrix: part -1, value its index, value2 the bytes charged (0: failed) */
  fb_event_at(f, TT_EV_BE_UPLOAD, t != NULL ? t->id : 0, dev, o->layer, -1, -1, index,
              t != NULL ? (int64_t)t->bytes : 0);
  pthread_mutex_unlock(&f->mx);
  return t;
}

int fb_dense_gemv(void *ctx, int dev, void *w, const float *x, float *y) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_DENSE_GEMV, dev);
  pthread_mutex_lock(&f->mx);
  fb_obj *t = fb_obj_of(f, w, FB_OBJ_DENSE, "dense gemv");
  if (fail) {
    fb_event_at(f, TT_EV_BE_GEMV, t != NULL ? t->id : 0, dev, -1, -1, -1, t != NULL ? t->index : -1,
                0);
    pthread_mutex_unlock(&f->mx);
    return 1;
  }
  int ok = t != NULL && t->alive && t->dev == dev;
  if (t != NULL && !t->alive)
    fb_violation(f, &f->l.use_after_free, "dense GEMV on device %d reads freed trunk #%d", dev,
                 t->index);
  if (ok) f->l.gemvs++;
  fb_event_at(f, TT_EV_BE_GEMV, t != NULL ? t->id : 0, dev, -1, -1, -1, t != NULL ? t->index : -1,
              ok);
  int index = ok ? t->index : 0, rows = ok ? t->rows : 0, cols = ok ? t->cols : 1;
  pthread_mutex_unlock(&f->mx);
  if (ok) fb_dense_output(index, rows, cols, x, y);
  return ok ? 0 : 1;
}
