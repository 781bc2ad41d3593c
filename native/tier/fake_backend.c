/*
 * The fake backend's answers to the tier (the tt_backend slots): each entry runs the
 * hook and any armed fault first (fb_enter), then checks and records under the fake's
 * lock. A check that fails is a violation in the ledger; the call still answers as a
 * lenient device would, so one defect does not hide the next.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

static uint64_t part_bytes(const fb_fake *f, int part) {
  return tt_alloc_footprint(f->cfg.weight_bytes[part]) +
      tt_alloc_footprint(f->cfg.scale_bytes[part]);
}

int fb_mem_info(void *ctx, int dev, uint64_t *free_bytes, uint64_t *total) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_MEM_INFO, dev);
  pthread_mutex_lock(&f->mx);
  uint64_t cap = f->cfg.capacity[dev], held = f->l.held[dev];
  *free_bytes = held < cap ? cap - held : 0;
  *total = cap;
  fb_event_at(f, TT_EV_BE_CALL, 0, dev, -1, -1, -1, TT_OP_MEM_INFO,
              fail ? -1 : (int64_t)*free_bytes);
  pthread_mutex_unlock(&f->mx);
  return fail ? -1 : 0;
}

void *fb_stage_call(void *ctx, void *ram, int layer, int eid) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_STAGE, -1);
  pthread_mutex_lock(&f->mx);
  fb_obj *r = fail ? NULL : fb_obj_of(f, ram, FB_OBJ_RAM, "stage");
  fb_obj *s = NULL;
  if (r != NULL) {
    if (!r->alive)
      fb_violation(f, &f->l.use_after_free, "stage of L%dE%d reads a freed RAM copy", layer, eid);
    if (r->layer != layer || r->eid != eid)
      fb_violation(f, &f->l.wrong_bytes, "stage of L%dE%d copies the bytes of L%dE%d", layer, eid,
                   r->layer, r->eid);
    s = fb_obj_new(f, FB_OBJ_STAGING, -1, r->layer, r->eid, -1, 0);
  }
  if (s != NULL) {
    f->l.stages++;
    f->l.staging_live++;
  }
  /* the key asked for, the RAM copy read, the copy made (0: none) */
  fb_event_at(f, TT_EV_BE_STAGE, s != NULL ? s->id : 0, -1, layer, eid, -1,
              (int64_t)fb_id_of(ram, FB_OBJ_RAM), s != NULL);
  pthread_mutex_unlock(&f->mx);
  return s;
}

void fb_unstage(void *ctx, void *staging) {
  fb_fake *f = ctx;
  fb_enter(f, FB_UNSTAGE, -1);
  pthread_mutex_lock(&f->mx);
  fb_obj *s = fb_obj_of(f, staging, FB_OBJ_STAGING, "unstage");
  fb_event_at(f, TT_EV_BE_UNSTAGE, s != NULL ? s->id : 0, -1, s != NULL ? s->layer : -1,
              s != NULL ? s->eid : -1, -1, 0, 0);
  if (s != NULL && !s->alive) {
    fb_violation(f, &f->l.double_frees, "unstage of L%dE%d's staging copy twice", s->layer, s->eid);
  } else if (s != NULL) {
    s->alive = 0;
    f->l.unstages++;
    f->l.staging_live--;
  }
  pthread_mutex_unlock(&f->mx);
}

/* A device allocation (mx held): NULL when dev's capacity would be exceeded. */
fb_obj *fb_device_alloc(fb_fake *f, int kind, int dev, int layer, int eid, int part,
                        uint64_t bytes) {
  if (f->l.held[dev] + bytes > f->cfg.capacity[dev]) return NULL;
  fb_obj *o = fb_obj_new(f, kind, dev, layer, eid, part, bytes);
  if (o == NULL) return NULL;
  f->l.held[dev] += bytes;
  fb_event(f, TT_EV_BE_ALLOC, o, dev, (int64_t)bytes, kind);
  return o;
}

/* An expert part or a trunk tensor (mx held), or NULL (a violation recorded). */
fb_obj *fb_device_obj(fb_fake *f, void *handle, const char *what) {
  fb_obj *o = handle;
  if (o != NULL && o->magic == FB_MAGIC && (o->kind == FB_OBJ_TENSOR || o->kind == FB_OBJ_DENSE))
    return o;
  fb_violation(f, &f->l.use_after_free, "%s: %p is not a device tensor of this backend", what,
               handle);
  return NULL;
}

void *fb_upload(void *ctx, int dev, void *staging, int part, int layer, int eid) {
  fb_fake *f = ctx;
  int fail = fb_enter(f, FB_UPLOAD, dev);
  pthread_mutex_lock(&f->mx);
  fb_obj *s = fail ? NULL : fb_obj_of(f, staging, FB_OBJ_STAGING, "upload");
  fb_obj *t = NULL;
  if (s != NULL) {
    if (!s->alive)
      fb_violation(f, &f->l.use_after_free, "upload of L%dE%d part %d reads a freed staging copy",
                   layer, eid, part);
    t = fb_device_alloc(f, FB_OBJ_TENSOR, dev, s->layer, s->eid, part, part_bytes(f, part));
  }
  if (t != NULL) {
    f->l.uploads++;
    f->l.tensors_live++;
  } else {
    f->l.upload_failures++;
  }
  /* the part asked for, the staging copy read, the tensor made (0: the upload failed) */
  fb_event_at(f, TT_EV_BE_UPLOAD, t != NULL ? t->id : 0, dev, layer, eid, part,
              (int64_t)fb_id_of(staging, FB_OBJ_STAGING), t != NULL ? (int64_t)t->bytes : 0);
  pthread_mutex_unlock(&f->mx);
  return t;
}

void fb_free(void *ctx, int dev, void *tensor) {
  fb_fake *f = ctx;
  fb_enter(f, FB_FREE, dev);
  pthread_mutex_lock(&f->mx);
  fb_obj *t = fb_device_obj(f, tensor, "free");
  if (t != NULL) fb_event(f, TT_EV_BE_FREE, t, t->dev, (int64_t)t->bytes, dev);
  if (t != NULL && !t->alive) {
    fb_violation(f, &f->l.double_frees, "free of L%dE%d part %d twice (device %d)", t->layer,
                 t->eid, t->part, dev);
  } else if (t != NULL) {
    if (t->in_group > 0)
      fb_violation(f, &f->l.free_in_group,
                   "free of L%dE%d part %d while an open group on device %d reads it", t->layer,
                   t->eid, t->part, t->dev);
    t->alive = 0;
    f->l.frees++;
    if (t->kind == FB_OBJ_TENSOR)
      f->l.tensors_live--;
    else
      f->l.dense_live--;
    if (f->cfg.reclaims) f->l.held[t->dev] -= t->bytes;
  }
  pthread_mutex_unlock(&f->mx);
}
