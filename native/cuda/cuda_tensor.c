/*
 * CUDA backend tensors: one block of the device's tensor heap for weights and scales,
 * filled either from the caller's memory (tl_tensor_upload, synchronous) or from an
 * engine RAM copy (tl_tensor_upload_staged, asynchronous).
 *
 * Why two copy paths: on an H200 host, pageable host-to-device copies ran at 7.1 GB/s
 * and pinned ones at 55.3 GB/s. A RAM copy in page-locked memory (the engine's RAM pool
 * registers its chunks) is copied straight from where it is, with cudaMemcpyAsync on
 * one of the upload streams and an event after it: the call returns at once and the
 * upload reaper reports the landing. Anything else goes through the device's pinned
 * staging buffer, two halves: while the DMA drains one, the host fills the other (with
 * several threads, par_copy.c: one core's memcpy is the bottleneck), an event per half
 * saying when it may be refilled.
 * Invariants: submissions to one device are serialised by upload_mu; a synchronous
 * upload returns only after its stream is drained; an asynchronous one is reported
 * exactly once (cuda_reaper.c) and its tensor is freed only after that (the dispatcher
 * waits); on failure nothing stays allocated; running out of device memory answers
 * TL_E_OOM.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "../src/par_copy.h"

/* the RAM copies' layout (backend.h): a copy from one is one cudaMemcpyAsync */
static size_t scales_at(size_t data_bytes) { return tl_span_scales_at(data_bytes); }

/* With a slow bus on purpose, fresh device memory is poisoned (0xff bytes: NaN scales,
 * weights of -1) before any tensor lands in it: a group that reads a block before its
 * copy landed then reads garbage, not the same expert's bytes that an earlier engine of
 * the process left at the same address (cudaMalloc hands freed memory back unwiped). */
static int poison_fresh(cuda_dev *d, void *p, size_t bytes) {
  if (d->b->copy_delay_us <= 0) return 1;
  return cudaMemset(p, 0xff, bytes) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
}

void *cuda_heap_map(void *ctx, size_t bytes) {
  cuda_dev *d = ctx;
  void *p = NULL;
  if (cudaSetDevice(d->ordinal) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess) {
    (void)cudaGetLastError(); /* an allocation failure is not sticky: clear it */
    return NULL;
  }
  if (!poison_fresh(d, p, bytes)) {
    (void)cudaFree(p);
    (void)cudaGetLastError();
    return NULL;
  }
  return p;
}

void cuda_heap_unmap(void *ctx, void *p, size_t bytes) {
  cuda_dev *d = ctx;
  (void)bytes;
  if (cudaSetDevice(d->ordinal) == cudaSuccess) (void)cudaFree(p);
  (void)cudaGetLastError();
}

/* The tensor's block: from the heap, else a cudaMalloc of its own (OOM when neither). */
static int alloc_block(cuda_dev *d, cuda_tensor *ct, size_t data_bytes, size_t nscales, char *err,
                       size_t cap) {
  ct->block_bytes = scales_at(data_bytes) + nscales * sizeof(float);
  void *p = tl_heap_alloc(&d->heap, ct->block_bytes);
  ct->from_heap = p != NULL;
  if (p == NULL) {
    CUDA_TRY(d, cudaSetDevice(d->ordinal));
    CUDA_TRY(d, cudaMalloc(&p, ct->block_bytes));
    if (!poison_fresh(d, p, ct->block_bytes)) {
      (void)cudaFree(p);
      return tl_fail(err, cap, TL_E_DEVICE, "cuda device %d: poisoning a fresh block failed",
                     d->ordinal);
    }
  }
  ct->d_w = p;
  ct->d_s = (float *)((unsigned char *)p + scales_at(data_bytes));
  __atomic_fetch_add(&d->tensor_bytes, (uint64_t)ct->block_bytes, __ATOMIC_RELAXED);
  return TL_OK;
}

static void release_block(cuda_dev *d, cuda_tensor *ct) {
  if (ct->d_w == NULL) return;
  if (ct->from_heap) {
    tl_heap_free(&d->heap, ct->d_w, ct->block_bytes);
  } else if (cudaSetDevice(d->ordinal) == cudaSuccess) {
    (void)cudaFree(ct->d_w);
  }
  (void)cudaGetLastError();
  ct->d_w = NULL;
  __atomic_fetch_sub(&d->tensor_bytes, (uint64_t)ct->block_bytes, __ATOMIC_RELAXED);
}

/* Copies n bytes from host src to device dst through the staging halves, on stream s. */
static int stage_copy(cuda_dev *d, int threads, cudaStream_t s, void *dst, const void *src,
                      size_t n, char *err, size_t cap) {
  const size_t half = CUDA_STAGE_BYTES / 2;
  int k = 0;
  for (size_t off = 0; off < n; off += half, k ^= 1) {
    const size_t chunk = n - off < half ? n - off : half;
    unsigned char *buf = d->h_stage + (size_t)k * half;
    CUDA_TRY(d, cudaEventSynchronize(d->stage_done[k])); /* that half's last DMA is done */
    par_copy(buf, (const unsigned char *)src + off, chunk, threads);
    CUDA_TRY(d, cudaMemcpyAsync((unsigned char *)dst + off, buf, chunk, cudaMemcpyHostToDevice, s));
    CUDA_TRY(d, cudaEventRecord(d->stage_done[k], s));
  }
  return TL_OK;
}

/* Enqueues the copy of weights and scales into ct's block on stream s (upload_mu held):
 * page-locked RAM spans straight from where they are, anything else staged. */
static int enqueue_copy(cuda_dev *d, int threads, cudaStream_t s, cuda_tensor *ct, const void *data,
                        size_t data_bytes, const float *scales, size_t nscales,
                        const tl_host_src *span, char *err, size_t cap) {
  if (span != NULL && span->pin != NULL) {
    CUDA_TRY(d, cudaMemcpyAsync(ct->d_w, span->data, span->span_bytes, cudaMemcpyHostToDevice, s));
    return TL_OK;
  }
  if (span != NULL) {
    return stage_copy(d, threads, s, ct->d_w, span->data, span->span_bytes, err, cap);
  }
  int rc = stage_copy(d, threads, s, ct->d_w, data, data_bytes, err, cap);
  if (rc == TL_OK) {
    rc = stage_copy(d, threads, s, ct->d_s, scales, nscales * sizeof(float), err, cap);
  }
  return rc;
}

int cuda_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                       const float *scales, size_t nscales, char *err, size_t cap) {
  cuda_dev *d = &b->dev[t->dev];
  cuda_tensor *ct = calloc(1, sizeof *ct);
  if (ct == NULL) return tl_fail(err, cap, TL_E_OOM, "cuda backend: host out of memory");
  int rc = alloc_block(d, ct, data_bytes, nscales, err, cap);
  if (rc == TL_OK) {
    cudaStream_t s = d->upload_stream[0];
    pthread_mutex_lock(&d->upload_mu);
    rc = cudaSetDevice(d->ordinal) == cudaSuccess
        ? enqueue_copy(d, b->copy_threads, s, ct, data, data_bytes, scales, nscales, NULL, err, cap)
        : tl_fail(err, cap, TL_E_DEVICE, "cuda device %d: cudaSetDevice failed", d->ordinal);
    /* drained either way: the staging halves may not be reused mid-DMA */
    cudaError_t e = cudaStreamSynchronize(s);
    pthread_mutex_unlock(&d->upload_mu);
    if (rc == TL_OK && e != cudaSuccess) {
      rc = cuda_fail(err, cap, d->ordinal, "cudaStreamSynchronize(upload)", e);
    }
  }
  if (rc != TL_OK) {
    release_block(d, ct);
    free(ct);
    return rc;
  }
  ct->landed = 1; /* before any group can see it */
  ct->t = t;
  t->impl = ct;
  return TL_OK;
}

/* upload_mu held: the copy and its event, and the tensor queued to the reaper; from
 * page-locked memory joined to the copies around it (cuda_hold.c). */
static int submit_async(cuda_dev *d, int threads, cuda_tensor *ct, const tl_host_src *src,
                        char *err, size_t cap) {
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  CUDA_TRY(d, cudaEventCreateWithFlags(&ct->landed_event, cudaEventDisableTiming));
  /* pageable memory goes through the shared staging halves: keep that on stream 0; and a
   * slow bus on purpose is one bus, its copies one after another (spread over the
   * streams, they landed together and the groups never met one in flight) */
  if (src->pin != NULL && d->b->copy_delay_us == 0) {
    cuda_hold_add(d, ct, src);
    return TL_OK;
  }
  cuda_hold_release(d); /* the reaper's queue stays in submission order */
  cudaStream_t s = d->upload_stream[0];
  if (d->b->copy_delay_us > 0)
    CUDA_TRY(d, tl_cuda_launch_delay(d->b->copy_delay_us, s)); /* a slow bus on purpose */
  int rc = enqueue_copy(d, threads, s, ct, NULL, 0, NULL, 0, src, err, cap);
  if (rc == TL_OK) {
    cudaError_t e = cudaEventRecord(ct->landed_event, s);
    if (e != cudaSuccess) rc = cuda_fail(err, cap, d->ordinal, "cudaEventRecord(upload)", e);
  }
  if (rc != TL_OK) {
    (void)cudaStreamSynchronize(s); /* nothing may still read src */
    return rc;
  }
  cuda_reap_upload(d, ct);
  return TL_OK;
}

int cuda_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                             size_t cap) {
  cuda_dev *d = &b->dev[t->dev];
  cuda_tensor *ct = calloc(1, sizeof *ct);
  if (ct == NULL) return tl_fail(err, cap, TL_E_OOM, "cuda backend: host out of memory");
  int rc = alloc_block(d, ct, src->data_bytes, src->nscales, err, cap);
  ct->t = t; /* before the reaper can report it */
  t->impl = ct;
  if (rc == TL_OK) {
    pthread_mutex_lock(&d->upload_mu);
    rc = submit_async(d, b->copy_threads, ct, src, err, cap);
    pthread_mutex_unlock(&d->upload_mu);
  }
  if (rc != TL_OK) {
    t->impl = NULL;
    if (ct->landed_event != NULL) (void)cudaEventDestroy(ct->landed_event);
    release_block(d, ct);
    free(ct);
    return rc;
  }
  return TL_OK;
}

void cuda_tensor_free(tl_backend *b, tl_tensor *t) {
  cuda_dev *d = &b->dev[t->dev];
  cuda_tensor *ct = t->impl;
  if (ct == NULL) return;
  /* no open group reads this tensor and its copy has landed (the dispatcher guarantees
   * both), so the block can be reused at once */
  if (ct->landed_event != NULL && cudaSetDevice(d->ordinal) == cudaSuccess) {
    (void)cudaEventDestroy(ct->landed_event);
  }
  release_block(d, ct);
  free(ct);
  t->impl = NULL;
}
