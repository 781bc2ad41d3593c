/*
 * The fake backend's environment slots: the tier's host arrays (real memory, recorded),
 * the operating system's init steps a test may fail (sync objects, thread start), the
 * backend's shutdown, the RAM copies a test lends the tier, and the tt_backend table.
 */
#include <stdlib.h>

#include "fake_internal.h"

static void *fb_host_alloc(void *ctx, int what, size_t bytes) {
  fb_fake *f = ctx;
  if (fb_enter(f, FB_HOST_ALLOC, -1)) {
    pthread_mutex_lock(&f->mx);
    fb_event_at(f, TT_EV_BE_HOST, 0, -1, -1, -1, what, (int64_t)bytes, -1); /* refused */
    pthread_mutex_unlock(&f->mx);
    return NULL;
  }
  void *mem = calloc(1, bytes > 0 ? bytes : 1);
  if (mem == NULL) return NULL;
  pthread_mutex_lock(&f->mx);
  fb_obj *o = fb_obj_new(f, FB_OBJ_HOST, -1, -1, -1, what, bytes);
  if (o != NULL) {
    o->mem = mem;
    f->l.host_live++;
    fb_event(f, TT_EV_BE_HOST, o, -1, (int64_t)bytes, 1);
  }
  pthread_mutex_unlock(&f->mx);
  if (o == NULL) free(mem);
  return o != NULL ? mem : NULL;
}

static void fb_host_free(void *ctx, int what, void *p) {
  fb_fake *f = ctx;
  fb_enter(f, FB_HOST_FREE, -1);
  pthread_mutex_lock(&f->mx);
  fb_obj *o = f->objs;
  while (o != NULL && !(o->kind == FB_OBJ_HOST && o->mem == p && o->alive)) o = o->next;
  if (o == NULL) {
    fb_event_at(f, TT_EV_BE_HOST, 0, -1, -1, -1, what, 0, 0);
    fb_violation(f, &f->l.double_frees, "host free of array %d at %p: not a live host array", what,
                 p);
  } else {
    free(o->mem);
    o->alive = 0;
    f->l.host_live--;
    fb_event(f, TT_EV_BE_HOST, o, -1, (int64_t)o->bytes, 0);
  }
  pthread_mutex_unlock(&f->mx);
}

static int fb_env_fault(void *ctx, int site) {
  fb_fake *f = ctx;
  int op = site == TT_ENV_SYNC_INIT ? FB_SYNC_INIT : FB_THREAD_START;
  int fail = fb_enter(f, op, -1);
  pthread_mutex_lock(&f->mx);
  fb_event_at(f, TT_EV_BE_CALL, 0, -1, -1, -1, -1, op, fail); /* value2: 1 failed */
  pthread_mutex_unlock(&f->mx);
  return fail;
}

static void fb_shutdown(void *ctx) {
  fb_fake *f = ctx;
  fb_enter(f, FB_SHUTDOWN, -1);
  pthread_mutex_lock(&f->mx);
  f->l.shutdowns++;
  fb_event(f, TT_EV_BE_SHUTDOWN, NULL, -1, (int64_t)f->l.tensors_live, (int64_t)f->l.staging_live);
  pthread_mutex_unlock(&f->mx);
}

void *fb_ram_new(fb_fake *f, int layer, int eid) {
  pthread_mutex_lock(&f->mx);
  fb_obj *o = fb_obj_new(f, FB_OBJ_RAM, -1, layer, eid, -1, 0);
  if (o != NULL) f->l.ram_live++;
  pthread_mutex_unlock(&f->mx);
  return o;
}

void fb_ram_free(fb_fake *f, void *ram) {
  pthread_mutex_lock(&f->mx);
  fb_obj *o = fb_obj_of(f, ram, FB_OBJ_RAM, "RAM free");
  if (o != NULL && !o->alive) {
    fb_violation(f, &f->l.double_frees, "RAM copy of L%dE%d freed twice", o->layer, o->eid);
  } else if (o != NULL) {
    o->alive = 0;
    f->l.ram_live--;
  }
  pthread_mutex_unlock(&f->mx);
}

void fb_backend(fb_fake *f, tt_backend *out) {
  *out = (tt_backend){.ctx = f,
                      .devices = f->cfg.devices,
                      .reclaims = f->cfg.reclaims,
                      .mem_info = fb_mem_info,
                      .stage = fb_stage_call,
                      .unstage = fb_unstage,
                      .upload = fb_upload,
                      .free = fb_free,
                      .issue = fb_issue,
                      .take = fb_take,
                      .dense_upload = fb_dense_upload,
                      .dense_gemv = fb_dense_gemv,
                      .shutdown = fb_shutdown,
                      .host_alloc = fb_host_alloc,
                      .host_free = fb_host_free,
                      .env_fault = fb_env_fault};
}
