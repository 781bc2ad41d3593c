/*
 * What the CUDA host code hands the expert kernels, and the kernels' launcher.
 *
 * Role: the one header shared by the C host files and expert_kernels.cu. A group is a
 * device array of tl_cuda_row (one expert per row), copied in with the input on the
 * group stream. Invariants: pointers are device pointers of live tensors (the
 * dispatcher keeps them alive until the group is taken); shapes were checked by the
 * dispatcher (gate/up [width][hidden], down [hidden][width], one format per row).
 */
#ifndef TIERLAB_CUDA_ROWS_H
#define TIERLAB_CUDA_ROWS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

typedef struct tl_cuda_wref {
  const void *w; /* packed weights (MATH.md layout) */
  const float *s; /* scales */
  int fmt, rows, cols, group;
} tl_cuda_wref;

typedef struct tl_cuda_row {
  tl_cuda_wref gate, up, down;
  int width; /* F of this row's expert */
} tl_cuda_row;

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the group's kernels on `stream`: quant(x) -> gate/up -> h -> quant(h) -> down.
 * Buffers (device): x and y are n * hidden floats (row stride hidden); h is n rows of
 * stride TL_MAX_WIDTH; qx / qh are n rows of stride TL_MAX_HIDDEN / TL_MAX_WIDTH int8;
 * e holds 2 * TL_MAX_GROUP_ROWS ints (x exponents, then h exponents); lut 1024 floats.
 * Returns the launch status (cudaGetLastError). */
cudaError_t tl_cuda_launch_group(const tl_cuda_row *rows, int n, int hidden, int max_width,
                                 const float *x, float *y, float *h, int8_t *qx, int8_t *qh, int *e,
                                 const float *lut, cudaStream_t stream);

/* The dense GEMV on `stream`: y[o] = MATH.md's format-1 dot of row o of w with qx (w.cols
 * int8 on the device) and exponent e, for o < w.rows. */
cudaError_t tl_cuda_launch_dense(tl_cuda_wref w, const int8_t *qx, int e, float *y,
                                 cudaStream_t stream);

/* A slow bus or device on purpose: work enqueued on `stream` after this starts `us`
 * microseconds later, by a one-thread kernel that waits on the device. Other streams are
 * not held back, as they are by a host function (cudaLaunchHostFunc: device work added
 * to any stream may wait for every preceding host function), which made a slow bus slow
 * the groups too and hid an upload that reported its landing early. */
cudaError_t tl_cuda_launch_delay(long us, cudaStream_t stream);

/* Copies the e4m3 table (256 floats, native/src/e4m3.c) into the current device's
 * constant memory, where format 8's dots read it. */
cudaError_t tl_cuda_set_e4m3(const float *table);

#ifdef __cplusplus
}
#endif
#endif
