/*
 * The adapter's slots: each engine call with its status checked. An upload is tagged 0
 * (no completion is queued: the tier does not wait for landings; a group waits for its
 * tensors' bytes on the device itself). Trunk tensors are ordinary engine tensors, freed
 * with tl_tensor_free like expert parts. The engine's own lifetime is its owner's, so
 * the backend's shutdown frees nothing more: the tier has freed what it held.
 */
#include <stdio.h>
#include <string.h>

#include "engine_backend.h"

#define ERR_CAP 256

static const char *const op_names[TT_OP_COUNT] = {
    "upload",    "free",      "stage",        "unstage",    "issue",
    "take",      "mem_info",  "dense_upload", "dense_gemv", "host_alloc",
    "host_free", "sync_init", "thread_start", "shutdown"};

static int check(tt_engine_backend *eb, int op, int dev, int rc, const char *err) {
  atomic_fetch_add(&eb->calls, 1);
  if (rc != TL_OK) {
    atomic_fetch_add(&eb->failures, 1);
    int expected = 0;
    if (atomic_compare_exchange_strong(&eb->failed_once, &expected, 1))
      snprintf(eb->first_failure, sizeof eb->first_failure, "%s dev %d: %.200s", op_names[op], dev,
               err);
  }
  if (eb->log != NULL) {
    tt_event ev;
    tt_event_clear(&ev, TT_SRC_BACKEND, TT_EV_BE_CALL, TT_LK_NONE);
    ev.dev = dev;
    ev.value = op;
    ev.value2 = rc;
    tt_log_emit(eb->log, &ev);
  }
  return rc;
}

static int eb_mem_info(void *ctx, int dev, uint64_t *free_bytes, uint64_t *total) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  return check(eb, TT_OP_MEM_INFO, dev,
               tl_mem_info(eb->eng, dev, free_bytes, total, err, sizeof err), err);
}

static void *eb_stage(void *ctx, void *ram, int layer, int eid) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  tl_staging *s = NULL;
  (void)layer;
  (void)eid;
  int rc = check(eb, TT_OP_STAGE, -1, tl_stage(eb->eng, ram, &s, err, sizeof err), err);
  return rc == TL_OK ? s : NULL;
}

static void eb_unstage(void *ctx, void *staging) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  check(eb, TT_OP_UNSTAGE, -1, tl_unstage(eb->eng, staging, err, sizeof err), err);
}

static void *eb_upload(void *ctx, int dev, void *staging, int part, int layer, int eid) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  tl_tensor *t = NULL;
  (void)layer;
  (void)eid;
  int rc = tl_tensor_upload_staged(eb->eng, dev, staging, part, 0, &t, err, sizeof err);
  return check(eb, TT_OP_UPLOAD, dev, rc, err) == TL_OK ? t : NULL;
}

static void eb_free(void *ctx, int dev, void *tensor) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  check(eb, TT_OP_FREE, dev, tl_tensor_free(eb->eng, tensor, err, sizeof err), err);
}

static int eb_issue(void *ctx, int dev, int n, void *const *gate, void *const *up,
                    void *const *down, const float *x, int hidden) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  int rc = tl_group_issue(eb->eng, dev, n, (tl_tensor *const *)gate, (tl_tensor *const *)up,
                          (tl_tensor *const *)down, x, hidden, 0, err, sizeof err);
  return check(eb, TT_OP_ISSUE, dev, rc, err) == TL_OK ? 0 : 1;
}

static int eb_take(void *ctx, int dev, int n, float *y, int hidden) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  int rc = tl_group_take(eb->eng, dev, y, n, hidden, err, sizeof err);
  return check(eb, TT_OP_TAKE, dev, rc, err) == TL_OK ? 0 : 1;
}

static void *eb_dense_upload(void *ctx, int dev, int index, const tt_trunk_offer *o) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  tl_tensor *t = NULL;
  (void)index;
  size_t bytes = (size_t)o->rows * (size_t)o->cols;
  int rc = tl_tensor_upload(eb->eng, dev, TL_FMT_I8_ROW, o->rows, o->cols, 0, o->data, bytes,
                            o->scales, (size_t)o->rows, &t, err, sizeof err);
  return check(eb, TT_OP_DENSE_UPLOAD, dev, rc, err) == TL_OK ? t : NULL;
}

static int eb_dense_gemv(void *ctx, int dev, void *w, const float *x, float *y) {
  tt_engine_backend *eb = ctx;
  char err[ERR_CAP] = "";
  int rc = tl_dense_matvec(eb->eng, dev, w, x, y, err, sizeof err);
  return check(eb, TT_OP_DENSE_GEMV, dev, rc, err) == TL_OK ? 0 : 1;
}

static void eb_shutdown(void *ctx) { (void)ctx; }

int tt_engine_backend_init(tt_engine_backend *eb, tl_engine *eng, tt_log *log, tt_backend *out) {
  char err[ERR_CAP] = "";
  int devices = 0;
  if (eb == NULL || out == NULL) return -1;
  memset(eb, 0, sizeof *eb);
  if (tl_device_count(eng, &devices, err, sizeof err) != TL_OK) {
    snprintf(eb->first_failure, sizeof eb->first_failure, "not a live engine: %.200s", err);
    return -1;
  }
  eb->eng = eng;
  eb->log = log;
  int reclaims = tl_reclaims(eng);
  *out = (tt_backend){.ctx = eb,
                      .devices = devices,
                      .reclaims = reclaims == 1,
                      .mem_info = eb_mem_info,
                      .stage = eb_stage,
                      .unstage = eb_unstage,
                      .upload = eb_upload,
                      .free = eb_free,
                      .issue = eb_issue,
                      .take = eb_take,
                      .dense_upload = eb_dense_upload,
                      .dense_gemv = eb_dense_gemv,
                      .shutdown = eb_shutdown};
  return 0;
}
