/*
 * tl_expert_cpu: one expert on the host from RAM weights (the tier's CPU path for
 * misses, and the reference every backend is compared with, bit for bit).
 *
 * Invariants: the same argument rules as an upload plus a group issue (shapes from
 * shape.c, H <= TL_MAX_HIDDEN, F <= TL_MAX_WIDTH, finite scales and x); the math is
 * expert_math.c, the very code the CPU backend's workers run.
 */
#include <stdlib.h>

#include "backend.h"
#include "expert_math.h"
#include "shape.h"

static const char *const FN = "tl_expert_cpu";

/* Checks one of the three tensors: pointers, shape, values (finite scales, no fp8 NaN). */
static int check_part(const char *what, int fmt, int rows, int cols, int group, const void *w,
                      const float *s, char *err, size_t cap) {
  uint64_t bytes, nscales;
  int rc = tl_check_shape(FN, what, fmt, rows, cols, group, &bytes, &nscales, err, cap);
  if (rc != TL_OK) return rc;
  if (w == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: %s weights are NULL", FN, what);
  if (s == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: %s scales are NULL", FN, what);
  return tl_check_values(FN, what, fmt, w, (size_t)bytes, s, (size_t)nscales, err, cap);
}

TL_API int tl_expert_cpu(int fmt, int hidden, int width, int group, const void *gate,
                         const float *gate_s, const void *up, const float *up_s, const void *down,
                         const float *down_s, const float *lut, const float *x, float *y, char *err,
                         size_t err_cap) {
  if (err != NULL && err_cap > 0) err[0] = '\0';
  if (hidden < 1 || hidden > TL_MAX_HIDDEN) {
    return tl_fail(err, err_cap, TL_E_ARG, "%s: hidden must be in 1..%d (got %d)", FN,
                   TL_MAX_HIDDEN, hidden);
  }
  if (width < 1 || width > TL_MAX_WIDTH) {
    return tl_fail(err, err_cap, TL_E_ARG, "%s: width must be in 1..%d (got %d)", FN, TL_MAX_WIDTH,
                   width);
  }
  int rc = check_part("gate", fmt, width, hidden, group, gate, gate_s, err, err_cap);
  if (rc == TL_OK) rc = check_part("up", fmt, width, hidden, group, up, up_s, err, err_cap);
  if (rc == TL_OK) {
    rc = check_part("down", fmt, hidden, width, group, down, down_s, err, err_cap);
  }
  if (rc != TL_OK) return rc;
  if (lut == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: lut is NULL", FN);
  if (x == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: x is NULL", FN);
  if (y == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: y is NULL", FN);
  long bad = tl_first_nonfinite(lut, TL_SILU_LUT_SIZE);
  if (bad >= 0) return tl_fail(err, err_cap, TL_E_ARG, "%s: lut[%ld] is not finite", FN, bad);
  bad = tl_first_nonfinite(x, (size_t)hidden);
  if (bad >= 0) return tl_fail(err, err_cap, TL_E_ARG, "%s: x[%ld] is not finite", FN, bad);

  int8_t *q = malloc((size_t)(hidden > width ? hidden : width));
  float *h = malloc((size_t)width * sizeof(float));
  if (q == NULL || h == NULL) {
    free(q);
    free(h);
    return tl_fail(err, err_cap, TL_E_OOM, "%s: host out of memory for scratch", FN);
  }
  tl_expert_ref ex = {
      .gate = {gate, gate_s, fmt, width, hidden, group},
      .up = {up, up_s, fmt, width, hidden, group},
      .down = {down, down_s, fmt, hidden, width, group},
      .hidden = hidden,
      .width = width,
  };
  tl_expert_run(&ex, lut, x, y, q, h);
  free(q);
  free(h);
  return TL_OK;
}
