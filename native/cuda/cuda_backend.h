/*
 * The CUDA backend's internal state.
 *
 * Role: per device (an index into the engine's list, mapped to a CUDA ordinal) two
 * streams (groups, uploads), a pinned staging buffer for uploads, pinned group
 * input/output blocks, and device group buffers sized once at init for the largest
 * group (TL_MAX_GROUP_ROWS rows of TL_MAX_HIDDEN / TL_MAX_WIDTH), so the ledger's
 * baseline never moves and issue never allocates.
 * Invariants: every entry point calls cudaSetDevice first (the current device is
 * per host thread, and uploads run on another thread than groups); upload_mu
 * serialises uploads to one device (they share the staging buffer); group state is
 * only touched by issue/take, which the dispatcher never runs concurrently on a device.
 */
#ifndef TIERLAB_CUDA_BACKEND_H
#define TIERLAB_CUDA_BACKEND_H

#include <pthread.h>

#include "../src/backend.h"
#include "cuda_rows.h"

/* Pinned staging per device: two halves, so the host copy into one half overlaps the
 * DMA out of the other. */
#define CUDA_STAGE_BYTES (64ull << 20)

typedef struct cuda_dev {
  int ordinal; /* CUDA device number */
  int ready;   /* upload_mu exists (streams and events: non-NULL once created) */
  cudaStream_t group_stream, upload_stream;
  cudaEvent_t group_done, stage_done[2];
  pthread_mutex_t upload_mu;
  /* device group buffers (see tl_cuda_launch_group) */
  float *d_x, *d_y, *d_h, *d_lut;
  int8_t *d_qx, *d_qh;
  int *d_e;
  tl_cuda_row *d_rows;
  /* pinned host blocks */
  float *h_x, *h_y;
  tl_cuda_row *h_rows;
  unsigned char *h_stage;
} cuda_dev;

struct tl_backend {
  int ndev;
  int copy_threads; /* host threads filling the staging buffer (par_copy.h) */
  cuda_dev dev[TL_MAX_DEVICES];
  uint64_t internal_count, internal_bytes; /* device buffers made at init */
};

typedef struct cuda_tensor {
  void *d_w;
  float *d_s;
} cuda_tensor;

/* cuda_errors.c: a CUDA failure as a tierlab status (allocation -> TL_E_OOM, else
 * TL_E_DEVICE) with cudaGetErrorString in the message; clears non-sticky errors. */
int cuda_fail(char *err, size_t cap, int ordinal, const char *what, cudaError_t rc);
#define CUDA_TRY(d, call)                                                \
  do {                                                                   \
    cudaError_t rc_ = (call);                                            \
    if (rc_ != cudaSuccess) return cuda_fail(err, cap, (d)->ordinal, #call, rc_); \
  } while (0)

/* cuda_tensor.c */
int cuda_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                       const float *scales, size_t nscales, char *err, size_t cap);
void cuda_tensor_free(tl_backend *b, tl_tensor *t);

/* cuda_group.c */
int cuda_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate,
                     tl_tensor *const *up, tl_tensor *const *down, const float *x,
                     int hidden, char *err, size_t cap);
int cuda_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err,
                    size_t cap);

#endif
