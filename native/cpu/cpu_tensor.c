/*
 * CPU backend tensors: host copies of weights and scales, charged against the
 * simulated device's capacity with the protocol's footprint rule.
 *
 * Invariants: the charge is taken before the copy and given back if the copy fails;
 * used_bytes is guarded by acct_mu (uploads and frees run on the uploader thread while
 * workers compute); a full device answers TL_E_OOM, like a real allocator.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"

int cpu_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                      const float *scales, size_t nscales, char *err, size_t cap) {
  const uint64_t fp = t->footprint_bytes;
  pthread_mutex_lock(&b->acct_mu);
  uint64_t used = b->used_bytes[t->dev];
  int full = fp > b->capacity_bytes - used;
  if (!full) b->used_bytes[t->dev] = used + fp;
  pthread_mutex_unlock(&b->acct_mu);
  if (full) {
    return tl_fail(err, cap, TL_E_OOM,
                   "cpu backend: device %d is full (%" PRIu64 " of %" PRIu64
                   " bytes free, tensor needs %" PRIu64 ")", t->dev,
                   b->capacity_bytes - used, b->capacity_bytes, fp);
  }
  cpu_tensor *ct = calloc(1, sizeof *ct);
  if (ct != NULL) {
    ct->w = malloc(data_bytes);
    ct->s = malloc(nscales * sizeof(float));
  }
  if (ct == NULL || ct->w == NULL || ct->s == NULL) {
    if (ct != NULL) {
      free(ct->w);
      free(ct->s);
      free(ct);
    }
    pthread_mutex_lock(&b->acct_mu);
    b->used_bytes[t->dev] -= fp;
    pthread_mutex_unlock(&b->acct_mu);
    return tl_fail(err, cap, TL_E_OOM, "cpu backend: host out of memory for a tensor");
  }
  memcpy(ct->w, data, data_bytes);
  memcpy(ct->s, scales, nscales * sizeof(float));
  t->impl = ct;
  return TL_OK;
}

void cpu_tensor_free(tl_backend *b, tl_tensor *t) {
  cpu_tensor *ct = t->impl;
  if (ct != NULL) {
    free(ct->w);
    free(ct->s);
    free(ct);
  }
  t->impl = NULL;
  pthread_mutex_lock(&b->acct_mu);
  b->used_bytes[t->dev] -= t->footprint_bytes;
  pthread_mutex_unlock(&b->acct_mu);
}
