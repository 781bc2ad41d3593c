/*
 * Tensor shape rules (see shape.h). Sizes are computed in 64 bits: rows and cols are at
 * most TL_MAX_DIM (2^24), so rows * cols < 2^48 cannot overflow.
 */
#include "shape.h"

#include <math.h>

#include "backend.h"
#include "e4m3.h"

int tl_check_shape(const char *fn, const char *what, int fmt, int rows, int cols, int group,
                   uint64_t *data_bytes, uint64_t *nscales, char *err, size_t cap) {
  if (fmt != TL_FMT_I8_ROW && fmt != TL_FMT_I4_ROW && fmt != TL_FMT_I4_GROUP &&
      fmt != TL_FMT_FP8_BLOCK) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: %s format %d is unknown (1 int8 per row, 2 int4 per row, "
                   "4 int4 grouped, 8 fp8 e4m3 with 128x128 block scales)",
                   fn, what, fmt);
  }
  if (rows < 1 || rows > TL_MAX_DIM) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s rows must be in 1..%d (got %d)", fn, what,
                   TL_MAX_DIM, rows);
  }
  if (cols < 1 || cols > TL_MAX_DIM) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s cols must be in 1..%d (got %d)", fn, what,
                   TL_MAX_DIM, cols);
  }
  if ((fmt == TL_FMT_I4_ROW || fmt == TL_FMT_I4_GROUP) && cols % 2 != 0) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s cols must be even for int4 format %d (got %d)", fn,
                   what, fmt, cols);
  }
  if (fmt == TL_FMT_I4_GROUP) {
    if (group < 1 || cols % group != 0) {
      return tl_fail(err, cap, TL_E_ARG,
                     "%s: %s group must divide cols for format 4 (group %d, cols %d)", fn, what,
                     group, cols);
    }
  } else if (group != 0) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s group must be 0 for format %d (got %d)", fn, what,
                   fmt, group);
  }
  uint64_t elems = (uint64_t)rows * (uint64_t)cols;
  const uint64_t row_blocks = ((uint64_t)rows + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK;
  const uint64_t col_blocks = ((uint64_t)cols + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK;
  *data_bytes = fmt == TL_FMT_I8_ROW || fmt == TL_FMT_FP8_BLOCK ? elems : elems / 2;
  *nscales = fmt == TL_FMT_I4_GROUP ? (uint64_t)rows * (uint64_t)(cols / group)
      : fmt == TL_FMT_FP8_BLOCK     ? row_blocks * col_blocks
                                    : (uint64_t)rows;
  return TL_OK;
}

int tl_check_values(const char *fn, const char *what, int fmt, const void *data, size_t data_bytes,
                    const float *scales, size_t nscales, char *err, size_t cap) {
  long bad = tl_first_nonfinite(scales, nscales);
  if (bad >= 0)
    return tl_fail(err, cap, TL_E_ARG, "%s: %s scales[%ld] is not finite", fn, what, bad);
  if (fmt == TL_FMT_FP8_BLOCK) {
    bad = tl_first_fp8_nan(data, data_bytes);
    if (bad >= 0) {
      return tl_fail(err, cap, TL_E_ARG,
                     "%s: %s weight %ld is the fp8 NaN encoding 0x%02x (format 8 refuses "
                     "non-finite weights)",
                     fn, what, bad, ((const uint8_t *)data)[bad]);
    }
  }
  return TL_OK;
}

long tl_first_nonfinite(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i])) return (long)i;
  }
  return -1;
}
