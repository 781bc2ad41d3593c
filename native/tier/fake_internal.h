/*
 * The fake backend's private records (fake_ledger.c keeps them, fake_backend.c answers
 * the tier with them). Every field of fb_fake below `mx` is guarded by `mx`.
 */
#ifndef FAKE_INTERNAL_H
#define FAKE_INTERNAL_H

#include <pthread.h>

#include "fake_backend.h"

#define FB_MAGIC 0x46424f42u /* "FBOB" */

enum { FB_OBJ_TENSOR, FB_OBJ_DENSE, FB_OBJ_STAGING, FB_OBJ_HOST, FB_OBJ_RAM };

typedef struct fb_obj {
  uint32_t magic;
  int kind; /* FB_OBJ_* */
  uint64_t id;
  int dev;
  int layer, eid, part; /* what its bytes are (tensors, staging copies, RAM copies) */
  int rows, cols, index; /* trunk tensors */
  uint64_t bytes;
  int alive;
  int in_group; /* open groups that read it */
  void *mem; /* host arrays: the memory handed out */
  struct fb_obj *next;
} fb_obj;

typedef struct fb_group {
  int open, n;
  fb_obj *rows[TT_GROUP_ROWS][3];
  float *x; /* the input, copied at issue (TT_GROUP_ROWS x hidden) */
  int hidden;
} fb_group;

struct fb_fake {
  fb_config cfg;
  tt_log *log;
  fb_hook hook;
  void *hook_arg;
  pthread_mutex_t mx;
  uint64_t calls[FB_SITE_COUNT];
  int64_t armed[FB_SITE_COUNT]; /* -1: none */
  uint64_t next_id;
  fb_obj *objs;
  fb_group group[TT_MAX_DEVICES];
  fb_ledger l;
};

/* fake_ledger.c: bookkeeping, mx held unless said otherwise */
/* Counts the call, runs the hook (mx not held), applies an armed fault: 1 = fail. */
int fb_enter(fb_fake *f, int site, int dev);
fb_obj *fb_obj_new(fb_fake *f, int kind, int dev, int layer, int eid, int part, uint64_t bytes);
/* The handle as an object of `kind`, or NULL (a violation recorded: not ours). */
fb_obj *fb_obj_of(fb_fake *f, void *handle, int kind, const char *what);
void fb_violation(fb_fake *f, uint64_t *counter, const char *fmt, ...);
void fb_event(fb_fake *f, int kind, const fb_obj *o, int dev, int64_t value, int64_t value2);
/* An event naming what a call was asked (layer, eid, part) and the allocation it concerns. */
void fb_event_at(fb_fake *f, int kind, uint64_t id, int dev, int layer, int eid, int part,
                 int64_t value, int64_t value2);
/* The id of a handle of `kind` of this backend, or 0 (no violation recorded: for events). */
uint64_t fb_id_of(const void *handle, int kind);

fb_obj *fb_device_obj(fb_fake *f, void *handle, const char *what);
/* A device allocation of `bytes` on dev: NULL when dev's capacity would be exceeded. */
fb_obj *fb_device_alloc(fb_fake *f, int kind, int dev, int layer, int eid, int part,
                        uint64_t bytes);

/* the tt_backend slots (fake_backend.c, fake_groups.c) */
int fb_mem_info(void *ctx, int dev, uint64_t *free_bytes, uint64_t *total);
void *fb_stage_call(void *ctx, void *ram, int layer, int eid);
void fb_unstage(void *ctx, void *staging);
void *fb_upload(void *ctx, int dev, void *staging, int part, int layer, int eid);
void fb_free(void *ctx, int dev, void *tensor);
int fb_issue(void *ctx, int dev, int n, void *const *gate, void *const *up, void *const *down,
             const float *x, int hidden);
int fb_take(void *ctx, int dev, int n, float *y, int hidden);
void *fb_dense_upload(void *ctx, int dev, int index, const tt_trunk_offer *o);
int fb_dense_gemv(void *ctx, int dev, void *w, const float *x, float *y);

#endif
