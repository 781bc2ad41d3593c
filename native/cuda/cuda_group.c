/*
 * CUDA backend groups: issue copies the input and the row table through pinned blocks
 * onto the device's group stream, enqueues the kernels and the copy back, and records
 * an event; take waits for that event and copies the output out.
 *
 * Invariants: the input is in pinned memory before issue returns (the caller may reuse
 * x at once); the pinned blocks are reused only after take has waited on the event (the
 * dispatcher never issues twice without a take); a tensor still uploading is waited for
 * on the device (cudaStreamWaitEvent on its landing event), never on the host; a failed
 * issue drains the stream before returning, so nothing in flight still reads the
 * pinned blocks; take writes y only after the event says success; the group reaper
 * reports each issued group once (cuda_reaper.c).
 */
#include <string.h>

#include "cuda_backend.h"

static tl_cuda_wref wref_of(const tl_tensor *t) {
  const cuda_tensor *ct = t->impl;
  return (tl_cuda_wref){ct->d_w, ct->d_s, t->fmt, t->rows, t->cols, t->group};
}

static int enqueue(cuda_dev *d, int n, int hidden, int max_width, char *err, size_t cap) {
  const size_t xbytes = (size_t)n * (size_t)hidden * sizeof(float);
  cudaStream_t s = d->group_stream;
  if (d->b->group_delay_us > 0)
    CUDA_TRY(d, tl_cuda_launch_delay(d->b->group_delay_us, s)); /* a slow device on purpose */
  CUDA_TRY(d,
           cudaMemcpyAsync(d->d_rows, d->h_rows, (size_t)n * sizeof(tl_cuda_row),
                           cudaMemcpyHostToDevice, s));
  CUDA_TRY(d, cudaMemcpyAsync(d->d_x, d->h_x, xbytes, cudaMemcpyHostToDevice, s));
  CUDA_TRY(d,
           tl_cuda_launch_group(d->d_rows, n, hidden, max_width, d->d_x, d->d_y, d->d_h, d->d_qx,
                                d->d_qh, d->d_e, d->d_lut, s));
  CUDA_TRY(d, cudaMemcpyAsync(d->h_y, d->d_y, xbytes, cudaMemcpyDeviceToHost, s));
  CUDA_TRY(d, cudaEventRecord(d->group_done, s));
  return TL_OK;
}

/* The group stream waits (on the device) for tensors whose copy has not landed yet. */
static int wait_for_copies(cuda_dev *d, tl_tensor *const *ts, int n, char *err, size_t cap) {
  for (int r = 0; r < n; r++) {
    cuda_tensor *ct = ts[r]->impl;
    if (__atomic_load_n(&ct->landed, __ATOMIC_ACQUIRE)) continue;
    CUDA_TRY(d, cudaStreamWaitEvent(d->group_stream, ct->landed_event, 0));
  }
  return TL_OK;
}

int cuda_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                     tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                     size_t cap) {
  cuda_dev *d = &b->dev[dev];
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  int max_width = 1;
  for (int r = 0; r < n; r++) {
    d->h_rows[r] = (tl_cuda_row){.gate = wref_of(gate[r]),
                                 .up = wref_of(up[r]),
                                 .down = wref_of(down[r]),
                                 .width = gate[r]->rows};
    if (gate[r]->rows > max_width) max_width = gate[r]->rows;
  }
  memcpy(d->h_x, x, (size_t)n * (size_t)hidden * sizeof(float));
  cuda_reap_group_wait_idle(d); /* the last group's report is out: group_done is free */
  cuda_hold_release_all(d); /* a held copy's events are recorded only when it goes */
  int rc = wait_for_copies(d, gate, n, err, cap);
  if (rc == TL_OK) rc = wait_for_copies(d, up, n, err, cap);
  if (rc == TL_OK) rc = wait_for_copies(d, down, n, err, cap);
  if (rc == TL_OK) rc = enqueue(d, n, hidden, max_width, err, cap);
  if (rc != TL_OK) {
    (void)cudaStreamSynchronize(d->group_stream);
    return rc;
  }
  cuda_reap_group(d, tag);
  return TL_OK;
}

int cuda_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap) {
  cuda_dev *d = &b->dev[dev];
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  CUDA_TRY(d, cudaEventSynchronize(d->group_done)); /* kernel faults surface here */
  memcpy(y, d->h_y, (size_t)n * (size_t)hidden * sizeof(float));
  return TL_OK;
}
