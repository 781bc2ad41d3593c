/*
 * The dense trunk (MATH.md "The int8 trunk"): quantization at start, the host GEMV, the
 * device GEMV's dispatcher, and the backend's count of device bytes.
 *
 * Why power-of-two row scales: the float64 reference must model the int8 trunk exactly.
 * A weight times 2^-e is exact in float32 and float64 alike, so both quantize every row
 * to the same int8 values; float(acc) * 2^e and the ldexp by the input's exponent are
 * exact too, so a GEMV's output is acc x 2^(e_row + e_x) on every backend and in the
 * reference.
 * Invariants: tl_dense_cpu and a backend's dense_matvec compute MATH.md's format-1 dot
 * of every row with the same quantized input (tl_dot_deq here, its mirror on a device);
 * a device GEMV holds its tensor (dense_uses) and its device (dense_busy) for the whole
 * call, so the tensor cannot be freed under it and two GEMVs never share the device's
 * dense buffers.
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "expert_math.h"
#include "shape.h"

static int check_dims(const char *fn, int rows, int cols, int max_rows, char *err, size_t cap) {
  if (rows < 1 || rows > max_rows) {
    return tl_fail(err, cap, TL_E_ARG, "%s: rows must be in 1..%d (got %d)", fn, max_rows, rows);
  }
  if (cols < 1 || cols > TL_MAX_HIDDEN) {
    return tl_fail(err, cap, TL_E_ARG, "%s: cols must be in 1..%d (got %d)", fn, TL_MAX_HIDDEN,
                   cols);
  }
  return TL_OK;
}

TL_API int tl_dense_quantize(const float *w, int rows, int cols, int8_t *q, float *scales,
                             char *err, size_t err_cap) {
  static const char *const FN = "tl_dense_quantize";
  tl_clear_err(err, err_cap);
  int rc = check_dims(FN, rows, cols, TL_MAX_DIM, err, err_cap);
  if (rc != TL_OK) return rc;
  if (w == NULL || q == NULL || scales == NULL) {
    return tl_fail(err, err_cap, TL_E_ARG, "%s: %s is NULL", FN,
                   w == NULL       ? "w"
                       : q == NULL ? "q"
                                   : "scales");
  }
  const size_t n = (size_t)rows * (size_t)cols;
  long bad = tl_first_nonfinite(w, n);
  if (bad >= 0) return tl_fail(err, err_cap, TL_E_ARG, "%s: w[%ld] is not finite", FN, bad);
  for (int r = 0; r < rows; r++) {
    int e = 0;
    tl_quant_i8(w + (size_t)r * (size_t)cols, cols, q + (size_t)r * (size_t)cols, &e);
    scales[r] = ldexpf(1.0f, e); /* e in [-66, 122]: a normal power of two, exact */
  }
  return TL_OK;
}

void tl_dense_rows(const int8_t *q, const float *scales, int rows, int cols, const int8_t *qx,
                   int e, float *y) {
  const tl_wref t = {q, scales, TL_FMT_I8_ROW, rows, cols, 0};
  for (int r = 0; r < rows; r++) y[r] = tl_dot_deq(&t, r, qx, e);
}

TL_API int tl_dense_cpu(const int8_t *q, const float *scales, int rows, int cols, const float *x,
                        float *y, char *err, size_t err_cap) {
  static const char *const FN = "tl_dense_cpu";
  tl_clear_err(err, err_cap);
  int rc = check_dims(FN, rows, cols, TL_MAX_DIM, err, err_cap);
  if (rc != TL_OK) return rc;
  if (q == NULL || scales == NULL || x == NULL || y == NULL) {
    return tl_fail(err, err_cap, TL_E_ARG, "%s: %s is NULL", FN,
                   q == NULL            ? "q"
                       : scales == NULL ? "scales"
                       : x == NULL      ? "x"
                                        : "y");
  }
  long bad = tl_first_nonfinite(scales, (size_t)rows);
  if (bad < 0) bad = tl_first_nonfinite(x, (size_t)cols);
  if (bad >= 0)
    return tl_fail(err, err_cap, TL_E_ARG, "%s: scales or x hold a non-finite value", FN);
  int8_t *qx = malloc((size_t)cols);
  if (qx == NULL) return tl_fail(err, err_cap, TL_E_OOM, "%s: host out of memory", FN);
  int e = 0;
  tl_quant_i8(x, cols, qx, &e);
  tl_dense_rows(q, scales, rows, cols, qx, e, y);
  free(qx);
  return TL_OK;
}

/* With eng->mu held: the GEMV may start on dev with tensor w. */
static int check_matvec(tl_engine *eng, int dev, tl_tensor *w, char *err, size_t cap) {
  static const char *const FN = "tl_dense_matvec";
  int rc = tl_check_dev(eng, FN, dev, err, cap);
  if (rc != TL_OK) return rc;
  if (w == NULL || !tl_ptrset_has(&eng->tensors, w)) {
    return tl_fail(err, cap, TL_E_ARG, "%s: w is not a live tensor of this engine", FN);
  }
  if (w->dev != dev) {
    return tl_fail(err, cap, TL_E_ARG, "%s: w lives on device %d, not %d", FN, w->dev, dev);
  }
  if (w->fmt != TL_FMT_I8_ROW) {
    return tl_fail(err, cap, TL_E_ARG, "%s: w has format %d; dense tensors are format 1", FN,
                   w->fmt);
  }
  if (w->upload != TL_UPLOAD_DONE) {
    return tl_fail(err, cap, TL_E_STATE, "%s: w has not landed on the device", FN);
  }
  rc = check_dims(FN, w->rows, w->cols, TL_MAX_DENSE_ROWS, err, cap);
  if (rc != TL_OK) return rc;
  if (eng->dense_busy[dev]) {
    return tl_fail(err, cap, TL_E_STATE, "%s: a dense GEMV already runs on device %d", FN, dev);
  }
  if (eng->ops->dense_matvec == NULL) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "%s: the %s backend has no dense GEMV", FN,
                   eng->ops->name);
  }
  return TL_OK;
}

TL_API int tl_dense_matvec(tl_engine *eng, int dev, tl_tensor *w, const float *x, float *y,
                           char *err, size_t err_cap) {
  static const char *const FN = "tl_dense_matvec";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if (x == NULL || y == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: %s is NULL", FN, x == NULL ? "x" : "y");
    tl_engine_leave(eng);
    return rc;
  }
  pthread_mutex_lock(&eng->mu);
  rc = check_matvec(eng, dev, w, err, err_cap);
  if (rc == TL_OK) {
    eng->dense_busy[dev] = 1;
    w->dense_uses++;
  }
  pthread_mutex_unlock(&eng->mu);
  if (rc == TL_OK) {
    long bad = tl_first_nonfinite(x, (size_t)w->cols);
    if (bad >= 0) {
      rc = tl_fail(err, err_cap, TL_E_ARG, "%s: x[%ld] is not finite", FN, bad);
    } else {
      int e = 0;
      int8_t *qx = eng->dense_q[dev]; /* this device's host scratch: dense_busy owns it */
      tl_quant_i8(x, w->cols, qx, &e);
      rc = eng->ops->dense_matvec(eng->be, dev, w, qx, e, y, err, err_cap);
    }
    pthread_mutex_lock(&eng->mu);
    eng->dense_busy[dev] = 0;
    w->dense_uses--;
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_device_bytes(tl_engine *eng, int dev, uint64_t *bytes, char *err, size_t err_cap) {
  static const char *const FN = "tl_device_bytes";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if ((rc = tl_check_dev(eng, FN, dev, err, err_cap)) == TL_OK) {
    if (bytes == NULL) {
      rc = tl_fail(err, err_cap, TL_E_ARG, "%s: bytes is NULL", FN);
    } else {
      *bytes = eng->ops->device_bytes(eng->be, dev);
    }
  }
  tl_engine_leave(eng);
  return rc;
}
