/*
 * The expert math of native/MATH.md, shared by tl_expert_cpu and the CPU backend (and
 * mirrored line for line by the CUDA kernels in native/cuda/expert_kernels.cu).
 *
 * Invariants: inputs were checked by the caller (shapes consistent, hidden and width at
 * most TL_MAX_HIDDEN / TL_MAX_WIDTH so int32 sums cannot overflow); only IEEE add, sub,
 * mul, int->float conversion, rintf and ldexpf are used, each rounded once, in a fixed
 * order (format 8's float sums run in column order within a block, blocks in order);
 * compiled with -ffp-contract=off so nothing is fused.
 */
#ifndef TIERLAB_EXPERT_MATH_H
#define TIERLAB_EXPERT_MATH_H

#include <stdint.h>

/* One weight tensor as the math sees it (host memory). */
typedef struct tl_wref {
  const void *w; /* packed weights, MATH.md layout for fmt */
  const float *s; /* scales: rows (fmt 1, 2), rows * cols / group (fmt 4), or one per
                     128 x 128 block, row-major over the block grid (fmt 8) */
  int fmt, rows, cols, group;
} tl_wref;

/* One expert: gate [F][H], up [F][H], down [H][F], all of one format. */
typedef struct tl_expert_ref {
  tl_wref gate, up, down;
  int hidden, width; /* H, F */
} tl_expert_ref;

/* quant(v): q[i] in [-127, 127], scale 2^e. NaN elements are ignored by amax and
 * quantize to -127 (the same rule as the kernels; checked inputs never hold NaN). */
void tl_quant_i8(const float *v, int n, int8_t *q, int *e);

/* Dequantized dot(W, row, q) with exponent e (MATH.md "dot"). */
float tl_dot_deq(const tl_wref *t, int row, const int8_t *q, int e);

/* The dense GEMV (dense.c): y[r] = tl_dot_deq of row r of the format-1 matrix (q, scales)
 * with (qx, e), for every row. */
void tl_dense_rows(const int8_t *q, const float *scales, int rows, int cols, const int8_t *qx,
                   int e, float *y);

/* expert(x) -> y. Scratch: q holds max(H, F) int8, h holds F floats. y may alias x. */
void tl_expert_run(const tl_expert_ref *ex, const float *lut, const float *x, float *y, int8_t *q,
                   float *h);

#endif
