/*
 * CUDA backend: the dense GEMV (tierlab.h tl_dense_matvec) and the tensor bytes held.
 *
 * Why its own stream and buffers: the GEMV runs while the device's expert group may be
 * in flight on the group stream. Sharing the group's input and output buffers (the
 * seeds' b86e55e) overwrote the group's input and put the GEMV's output where take
 * reads, with no CUDA error. Here the input goes through its own pinned block into its
 * own device buffer, the kernel writes its own output buffer, and the dense stream is
 * drained before the call returns.
 * Invariants: the dispatcher runs one GEMV at a time per device and keeps the tensor
 * alive meanwhile; dense tensors are uploaded synchronously, so they have landed.
 */
#include <string.h>

#include "cuda_backend.h"

int cuda_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                      char *err, size_t cap) {
  cuda_dev *d = &b->dev[dev];
  const cuda_tensor *ct = w->impl;
  const tl_cuda_wref ref = {ct->d_w, ct->d_s, w->fmt, w->rows, w->cols, w->group};
  cudaStream_t s = d->dense_stream;
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  memcpy(d->h_dense_in, qx, (size_t)w->cols);
  CUDA_TRY(
      d, cudaMemcpyAsync(d->d_dense_in, d->h_dense_in, (size_t)w->cols, cudaMemcpyHostToDevice, s));
  CUDA_TRY(d, tl_cuda_launch_dense(ref, d->d_dense_in, e, d->d_dense_out, s));
  CUDA_TRY(d,
           cudaMemcpyAsync(d->h_dense_out, d->d_dense_out, (size_t)w->rows * sizeof(float),
                           cudaMemcpyDeviceToHost, s));
  CUDA_TRY(d, cudaStreamSynchronize(s));
  memcpy(y, d->h_dense_out, (size_t)w->rows * sizeof(float));
  return TL_OK;
}

uint64_t cuda_device_bytes(tl_backend *b, int dev) {
  return __atomic_load_n(&b->dev[dev].tensor_bytes, __ATOMIC_RELAXED);
}
