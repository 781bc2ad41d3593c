/*
 * CPU backend tensors: host copies of weights and scales in one block of the backend's
 * heap (malloc when the heap cannot serve it), charged against the simulated device's
 * capacity with the protocol's footprint rule.
 *
 * Invariants: the charge is taken before the copy and given back if the copy fails;
 * used_bytes is guarded by acct_mu (uploads and frees run on the uploader thread while
 * workers compute); a full device answers TL_E_OOM, like a real allocator; a
 * synchronous upload copies on the caller's thread, an asynchronous one on a copy
 * thread (cpu_copy.c), and both leave the same bytes. The dense GEMV reads a tensor
 * here with the device's own dense buffers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"

/* the RAM copies' layout (backend.h): an asynchronous upload is one memcpy */
static size_t scales_at(size_t data_bytes) { return tl_span_scales_at(data_bytes); }

/* Charges the footprint and makes the tensor's block; the bytes are copied later. */
static int make_tensor(tl_backend *b, tl_tensor *t, size_t data_bytes, size_t nscales,
                       cpu_tensor **out, char *err, size_t cap) {
  const uint64_t fp = t->footprint_bytes;
  pthread_mutex_lock(&b->acct_mu);
  uint64_t used = b->used_bytes[t->dev];
  int full = fp > b->capacity_bytes - used;
  if (!full) b->used_bytes[t->dev] = used + fp;
  pthread_mutex_unlock(&b->acct_mu);
  if (full) {
    return tl_fail(err, cap, TL_E_OOM,
                   "cpu backend: device %d is full (%" PRIu64 " of %" PRIu64
                   " bytes free, tensor needs %" PRIu64 ")",
                   t->dev, b->capacity_bytes - used, b->capacity_bytes, fp);
  }
  cpu_tensor *ct = calloc(1, sizeof *ct);
  void *block = NULL;
  size_t bytes = scales_at(data_bytes) + nscales * sizeof(float);
  if (ct != NULL) {
    block = tl_heap_alloc(&b->dev[t->dev].heap, bytes);
    ct->from_heap = block != NULL;
    if (block == NULL) block = malloc(bytes);
  }
  if (ct == NULL || block == NULL) {
    free(ct);
    pthread_mutex_lock(&b->acct_mu);
    b->used_bytes[t->dev] -= fp;
    pthread_mutex_unlock(&b->acct_mu);
    return tl_fail(err, cap, TL_E_OOM, "cpu backend: host out of memory for a tensor");
  }
  ct->w = block;
  ct->s = (float *)((unsigned char *)block + scales_at(data_bytes));
  ct->block_bytes = bytes;
  ct->t = t;
  *out = ct;
  return TL_OK;
}

int cpu_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                      const float *scales, size_t nscales, char *err, size_t cap) {
  cpu_tensor *ct = NULL;
  int rc = make_tensor(b, t, data_bytes, nscales, &ct, err, cap);
  if (rc != TL_OK) return rc;
  memcpy(ct->w, data, data_bytes);
  memcpy(ct->s, scales, nscales * sizeof(float));
  ct->ready = 1; /* before any group can see it: no lock needed */
  t->impl = ct;
  return TL_OK;
}

int cpu_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                            size_t cap) {
  cpu_tensor *ct = NULL;
  int rc = make_tensor(b, t, src->data_bytes, src->nscales, &ct, err, cap);
  if (rc != TL_OK) return rc;
  ct->src = src->data;
  ct->span_bytes = src->span_bytes;
  t->impl = ct; /* before the job runs: a group issued meanwhile waits for ready */
  if (src->span_bytes <= CPU_INLINE_COPY_BYTES && b->copy.delay_us == 0) {
    /* waking a copy thread costs more than this copy: done here, reported at once (a
     * slow bus, TIERLAB_CPU_COPY_DELAY_US, sends every copy through the copy threads) */
    memcpy(ct->w, ct->src, ct->span_bytes);
    ct->ready = 1; /* the tensor is not handed out yet: no lock needed */
    tl_upload_done(t, TL_OK, NULL);
    return TL_OK;
  }
  cpu_copy_queue(&b->copy, ct);
  return TL_OK;
}

void cpu_tensor_free(tl_backend *b, tl_tensor *t) {
  cpu_tensor *ct = t->impl;
  if (ct != NULL) {
    if (ct->from_heap) {
      tl_heap_free(&b->dev[t->dev].heap, ct->w, ct->block_bytes);
    } else {
      free(ct->w);
    }
    free(ct);
  }
  t->impl = NULL;
  pthread_mutex_lock(&b->acct_mu);
  b->used_bytes[t->dev] -= t->footprint_bytes;
  pthread_mutex_unlock(&b->acct_mu);
}

/* The device's dense buffers: the input copied in, every row computed, the output out. */
int cpu_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                     char *err, size_t cap) {
  (void)err;
  (void)cap;
  cpu_device *d = &b->dev[dev];
  const cpu_tensor *ct = w->impl;
  memcpy(d->dense_in, qx, (size_t)w->cols);
  tl_dense_rows(ct->w, ct->s, w->rows, w->cols, d->dense_in, e, d->dense_out);
  memcpy(y, d->dense_out, (size_t)w->rows * sizeof(float));
  return TL_OK;
}

uint64_t cpu_device_bytes(tl_backend *b, int dev) {
  pthread_mutex_lock(&b->acct_mu);
  uint64_t used = b->used_bytes[dev];
  pthread_mutex_unlock(&b->acct_mu);
  return used;
}
