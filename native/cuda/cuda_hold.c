/*
 * CUDA backend: uploads from page-locked RAM copies joined into fewer, longer copies.
 *
 * Why: the copy engines pay a fixed time per copy, so experts whose tensors are small
 * (0.84 MiB for hidden 2048, width 768), one copy each, stop short of the bus's speed
 * however little the caller spends per upload (tests/cuda_piece_probe.cu measures it).
 * An expert's parts lie one after another in its RAM copy (ram.c: each at the next
 * TL_SPAN_ALIGN), and the tensor heap carves blocks of exactly the span's size bottom-up
 * (block_heap.c), so uploads made one after another continue each other in both
 * memories: one copy can move an expert's three tensors, and the next expert's too.
 * How: a new upload is held back (its block and event made, nothing submitted) while at
 * least CUDA_HOLD_LOW copies are in flight on the device, so the bus has work queued
 * and holding costs it nothing; an upload that continues the held copy in both memories
 * joins it. The held copy is submitted when an upload does not continue it, when it
 * reaches CUDA_HOLD_BYTES or CUDA_HOLD_MAX tensors, when the copies in flight fall below
 * CUDA_HOLD_LOW (the upload reaper, as each copy lands), and before a group waits for
 * its tensors (cuda_group.c).
 * Invariants (upload_mu): a held tensor is in no reaper queue and its event is not
 * recorded; submitted tensors are queued to the reaper in submission order, the last of
 * each copy marked (ends_copy); copies_in_flight counts submitted copies whose last
 * tensor was not reported yet; nothing is held while fewer than CUDA_HOLD_LOW copies are
 * in flight, so every held copy is submitted without any further call. A copy that
 * fails to submit marks its tensors failed, and the reaper reports them so. The reaper's
 * queue is filled through cuda_reap_upload with upload_mu held (here, and by the staged
 * path of cuda_tensor.c), so that it stays in submission order.
 */
#include <string.h>

#include "cuda_backend.h"

void cuda_reap_upload(cuda_dev *d, cuda_tensor *ct) {
  cuda_reaper *r = &d->uploads;
  ct->next = NULL;
  pthread_mutex_lock(&r->mu);
  if (r->tail != NULL) {
    r->tail->next = ct;
  } else {
    r->head = ct;
  }
  r->tail = ct;
  pthread_cond_signal(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

/* upload_mu held: the held copy submitted, on the next upload stream; its tensors
 * queued to the reaper (marked failed if the submission failed) */
void cuda_hold_release(cuda_dev *d) {
  cuda_held *h = &d->held;
  if (h->n == 0) return;
  cudaStream_t s = d->upload_stream[d->next_stream];
  d->next_stream = (d->next_stream + 1) % CUDA_UPLOAD_STREAMS;
  cudaError_t e = cudaMemcpyAsync(h->dst, h->src, h->bytes, cudaMemcpyHostToDevice, s);
  const char *what = "cudaMemcpyAsync(upload)";
  for (int k = 0; k < h->n; k++) {
    cuda_tensor *ct = h->t[k];
    if (e == cudaSuccess) {
      e = cudaEventRecord(ct->landed_event, s);
      what = "cudaEventRecord(upload)";
    }
    if (e != cudaSuccess) {
      ct->failed = 1;
      (void)cuda_fail(ct->failure, sizeof ct->failure, d->ordinal, what, e);
    }
    ct->ends_copy = k == h->n - 1;
    cuda_reap_upload(d, ct);
  }
  d->copies_in_flight++;
  h->n = 0;
  h->bytes = 0;
}

/* upload_mu held: ct's copy of src joins the held one, or is held after it went, or
 * goes at once when the bus has too little queued */
void cuda_hold_add(cuda_dev *d, cuda_tensor *ct, const tl_host_src *src) {
  cuda_held *h = &d->held;
  const unsigned char *from = src->data;
  unsigned char *to = ct->d_w;
  const int joins = h->n > 0 && h->n < CUDA_HOLD_MAX &&
      h->bytes + src->span_bytes <= CUDA_HOLD_BYTES && h->src + h->bytes == from &&
      h->dst + h->bytes == to;
  if (!joins) {
    cuda_hold_release(d);
    h->src = from;
    h->dst = to;
  }
  h->t[h->n++] = ct;
  h->bytes += src->span_bytes;
  if (d->copies_in_flight < CUDA_HOLD_LOW || h->n == CUDA_HOLD_MAX || h->bytes >= CUDA_HOLD_BYTES)
    cuda_hold_release(d);
}

/* The upload reaper, after reporting the last tensor of a copy (holding no lock). */
void cuda_hold_landed(cuda_dev *d) {
  pthread_mutex_lock(&d->upload_mu);
  d->copies_in_flight--;
  if (d->copies_in_flight < CUDA_HOLD_LOW) cuda_hold_release(d);
  pthread_mutex_unlock(&d->upload_mu);
}

/* Before a group on d waits for its tensors' events: every held copy submitted. */
void cuda_hold_release_all(cuda_dev *d) {
  pthread_mutex_lock(&d->upload_mu);
  cuda_hold_release(d);
  pthread_mutex_unlock(&d->upload_mu);
}
