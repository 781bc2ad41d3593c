/*
 * The dispatcher, part 2: tensor upload and free.
 *
 * Invariants: a tensor is charged footprint(weights) + footprint(scales) against its
 * device before the backend allocates (reserve first, so two concurrent uploads cannot
 * both fit into the last free bytes) and uncharged if the backend fails; it enters the
 * engine's registry only once the backend succeeded; a tensor used by an open group
 * cannot be freed; freeing returns the charge only on a backend that reclaims memory
 * (not the Vulkan fill-once arena). The backend copy runs without the engine lock, so
 * an uploader thread never stalls issue/take on the main thread. A tensor whose upload
 * from a RAM copy is still in flight (dispatch_async.c) is freed once it landed.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "engine.h"
#include "shape.h"

static const char *const UP = "tl_tensor_upload";

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* Checks every argument but the engine handle; writes the footprint to charge. */
static int check_upload(tl_engine *eng, int dev, int fmt, int rows, int cols, int group,
                        const void *data, size_t data_bytes, const float *scales, size_t nscales,
                        uint64_t *footprint, char *err, size_t cap) {
  int rc = tl_check_dev(eng, UP, dev, err, cap);
  if (rc != TL_OK) return rc;
  uint64_t want_bytes, want_scales;
  rc = tl_check_shape(UP, "tensor", fmt, rows, cols, group, &want_bytes, &want_scales, err, cap);
  if (rc != TL_OK) return rc;
  if (data == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: data is NULL", UP);
  if (scales == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: scales is NULL", UP);
  if ((uint64_t)data_bytes != want_bytes) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: data_bytes is %zu but format %d with rows %d, cols %d needs %" PRIu64, UP,
                   data_bytes, fmt, rows, cols, want_bytes);
  }
  if ((uint64_t)nscales != want_scales) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: nscales is %zu but format %d with rows %d, cols %d, group %d needs "
                   "%" PRIu64,
                   UP, nscales, fmt, rows, cols, group, want_scales);
  }
  rc = tl_check_values(UP, "tensor", fmt, data, data_bytes, scales, nscales, err, cap);
  if (rc != TL_OK) return rc;
  *footprint = add_sat(tl_alloc_footprint(data_bytes),
                       tl_alloc_footprint((uint64_t)nscales * sizeof(float)));
  return TL_OK;
}

int tl_upload_reserve(tl_engine *eng, const char *fn, int dev, uint64_t fp, char *err, size_t cap) {
  if (tl_fault_fires(eng, TL_OP_UPLOAD, dev)) {
    return tl_fail(err, cap, TL_E_FAULT, "%s: injected fault (upload on device %d)", fn, dev);
  }
  uint64_t used = eng->charged_bytes[dev];
  if (eng->capacity_bytes > 0 && fp > eng->capacity_bytes - used) {
    return tl_fail(err, cap, TL_E_OOM,
                   "%s: device %d is full: the tensor needs %" PRIu64 " bytes, %" PRIu64
                   " of %" PRIu64 " are free",
                   fn, dev, fp, eng->capacity_bytes - used, eng->capacity_bytes);
  }
  eng->charged_bytes[dev] = used + fp;
  return TL_OK;
}

static int upload_checked(tl_engine *eng, int dev, int fmt, int rows, int cols, int group,
                          const void *data, size_t data_bytes, const float *scales, size_t nscales,
                          tl_tensor **out, char *err, size_t cap) {
  uint64_t fp = 0;
  int rc = check_upload(eng, dev, fmt, rows, cols, group, data, data_bytes, scales, nscales, &fp,
                        err, cap);
  if (rc != TL_OK) return rc;
  pthread_mutex_lock(&eng->mu);
  rc = tl_upload_reserve(eng, UP, dev, fp, err, cap);
  pthread_mutex_unlock(&eng->mu);
  if (rc != TL_OK) return rc;

  tl_tensor *t = calloc(1, sizeof *t);
  if (t == NULL) {
    rc = tl_fail(err, cap, TL_E_OOM, "%s: host out of memory", UP);
  } else {
    *t = (tl_tensor){.owner = eng,
                     .dev = dev,
                     .fmt = fmt,
                     .rows = rows,
                     .cols = cols,
                     .group = group,
                     .footprint_bytes = fp,
                     .magic = TL_TENSOR_MAGIC};
    rc = eng->ops->tensor_upload(eng->be, t, data, data_bytes, scales, nscales, err, cap);
  }
  pthread_mutex_lock(&eng->mu);
  if (rc == TL_OK && tl_ptrset_add(&eng->tensors, t) != 0) {
    eng->ops->tensor_free(eng->be, t);
    rc = tl_fail(err, cap, TL_E_OOM, "%s: host out of memory for the tensor registry", UP);
  }
  if (rc == TL_OK) {
    eng->tensor_bytes += fp;
  } else {
    eng->charged_bytes[dev] -= fp;
  }
  pthread_mutex_unlock(&eng->mu);
  if (rc != TL_OK) {
    free(t);
    return rc;
  }
  *out = t;
  return TL_OK;
}

TL_API int tl_tensor_upload(tl_engine *eng, int dev, int fmt, int rows, int cols, int group,
                            const void *data, size_t data_bytes, const float *scales,
                            size_t nscales, tl_tensor **out, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: out is NULL", UP);
  *out = NULL;
  int rc = tl_engine_enter(eng, UP, err, err_cap);
  if (rc != TL_OK) return rc;
  rc = upload_checked(eng, dev, fmt, rows, cols, group, data, data_bytes, scales, nscales, out, err,
                      err_cap);
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_tensor_free(tl_engine *eng, tl_tensor *t, char *err, size_t err_cap) {
  static const char *const FN = "tl_tensor_free";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  pthread_mutex_lock(&eng->mu);
  /* an upload in flight writes the tensor: let it land first (microseconds) */
  while (t != NULL && tl_ptrset_has(&eng->tensors, t) && t->upload == TL_UPLOAD_PENDING) {
    pthread_cond_wait(&eng->up_cv, &eng->mu);
  }
  if (t == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: t is NULL", FN);
  } else if (!tl_ptrset_has(&eng->tensors, t)) {
    rc = tl_fail(err, err_cap, TL_E_ARG,
                 "%s: t is not a live tensor of this engine (already freed, or from "
                 "another engine)",
                 FN);
  } else if (t->group_uses > 0) {
    rc = tl_fail(err, err_cap, TL_E_STATE,
                 "%s: t is used by the open group on device %d; take the group first", FN, t->dev);
  } else if (t->dense_uses > 0) {
    rc = tl_fail(err, err_cap, TL_E_STATE, "%s: a dense GEMV on device %d reads t", FN, t->dev);
  } else {
    tl_ptrset_remove(&eng->tensors, t);
    eng->tensor_bytes -= t->footprint_bytes;
    /* a fill-once arena (reclaims 0) keeps the bytes: freeing gives no room back */
    if (eng->ops->reclaims) eng->charged_bytes[t->dev] -= t->footprint_bytes;
  }
  pthread_mutex_unlock(&eng->mu);
  if (rc == TL_OK) {
    /* unreachable through the registry now, so no lock is needed to release it */
    eng->ops->tensor_free(eng->be, t);
    t->magic = 0;
    free(t);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_tensor_reserve(tl_engine *eng, int dev, uint64_t bytes, char *err, size_t err_cap) {
  static const char *const FN = "tl_tensor_reserve";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if ((rc = tl_check_dev(eng, FN, dev, err, err_cap)) != TL_OK) {
    /* message written */
  } else if (eng->capacity_bytes > 0 && bytes > eng->capacity_bytes) {
    rc = tl_fail(err, err_cap, TL_E_ARG,
                 "%s: %" PRIu64 " bytes exceed the device's capacity of %" PRIu64, FN, bytes,
                 eng->capacity_bytes);
  } else if (bytes > 0 && eng->ops->tensor_reserve != NULL) {
    rc = eng->ops->tensor_reserve(eng->be, dev, bytes, err, err_cap);
  }
  tl_engine_leave(eng);
  return rc;
}
