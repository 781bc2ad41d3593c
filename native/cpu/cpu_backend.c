/*
 * The CPU reference backend: lifecycle, memory info, ledger, SiLU table, and the
 * vtable the dispatcher links to. Tensors are in cpu_tensor.c, groups and worker
 * threads in cpu_worker.c.
 *
 * Invariants: init either succeeds completely or releases everything it made;
 * shutdown stops the copy threads and every worker (after its pending job) before
 * freeing buffers; the ledger reports only the group and dense buffers (6 per device), fixed from
 * init on (the tensor heap holds tensors, which the dispatcher counts).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu_backend.h"

/* The tensor heap's chunks: host memory in huge pages where the kernel gives them,
 * touched at once, so no upload ever takes a page fault. */
static void *host_map(void *ctx, size_t bytes) {
  (void)ctx;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint */
  memset(p, 0, bytes);
  return p;
}

static void host_unmap(void *ctx, void *p, size_t bytes) {
  (void)ctx;
  munmap(p, bytes);
}

static void *count_alloc(tl_backend *b, size_t bytes) {
  void *p = malloc(bytes);
  if (p != NULL) {
    b->internal_count++;
    b->internal_bytes += bytes;
  }
  return p;
}

static void cpu_shutdown(tl_backend *b) {
  if (b == NULL) return;
  cpu_copy_stop(&b->copy); /* no job is left: the dispatcher waited for every upload */
  for (int i = 0; i < b->ndev; i++) {
    cpu_device *d = &b->dev[i];
    cpu_worker_stop(d);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    free(d->x);
    free(d->y);
    free(d->q);
    free(d->h);
    free(d->dense_in);
    free(d->dense_out);
    tl_heap_destroy(&d->heap);
  }
  pthread_mutex_destroy(&b->acct_mu);
  free(b);
}

static int init_device(tl_backend *b, cpu_device *d, char *err, size_t cap) {
  const size_t block = (size_t)TL_MAX_GROUP_ROWS * TL_MAX_HIDDEN * sizeof(float);
  const size_t qn = TL_MAX_HIDDEN > TL_MAX_WIDTH ? TL_MAX_HIDDEN : TL_MAX_WIDTH;
  d->x = count_alloc(b, block);
  d->y = count_alloc(b, block);
  d->q = count_alloc(b, qn);
  d->h = count_alloc(b, (size_t)TL_MAX_WIDTH * sizeof(float));
  d->dense_in = count_alloc(b, TL_MAX_HIDDEN);
  d->dense_out = count_alloc(b, (size_t)TL_MAX_DENSE_ROWS * sizeof(float));
  d->lut = b->lut;
  d->b = b;
  d->owner = b->owner;
  if (d->x == NULL || d->y == NULL || d->q == NULL || d->h == NULL || d->dense_in == NULL ||
      d->dense_out == NULL) {
    return tl_fail(err, cap, TL_E_OOM, "cpu backend: host out of memory for group buffers");
  }
  return cpu_worker_start(b, d, err, cap);
}

static int cpu_init(tl_backend **out, tl_engine *owner, const int *devices, int ndevices,
                    uint64_t capacity_bytes, char *err, size_t cap) {
  for (int i = 0; i < ndevices; i++) {
    if (devices[i] > CPU_MAX_DEVICE_ID) {
      return tl_fail(err, cap, TL_E_ARG,
                     "cpu backend: device ids are simulated and small: 0..%d (got %d)",
                     CPU_MAX_DEVICE_ID, devices[i]);
    }
  }
  tl_backend *b = calloc(1, sizeof *b);
  if (b == NULL) return tl_fail(err, cap, TL_E_OOM, "cpu backend: host out of memory");
  pthread_mutex_init(&b->acct_mu, NULL);
  b->owner = owner;
  b->capacity_bytes = capacity_bytes > 0 ? capacity_bytes : CPU_DEFAULT_CAPACITY;
  int rc = cpu_copy_start(&b->copy, err, cap);
  if (rc != TL_OK) {
    cpu_shutdown(b);
    return rc;
  }
  for (int i = 0; i < ndevices; i++) {
    cpu_device *d = &b->dev[i];
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    /* footprints round sizes up, so the blocks of a full device fit in its capacity */
    tl_heap_init(&d->heap, b->capacity_bytes, host_map, host_unmap, NULL);
    b->ndev = i + 1; /* shutdown releases exactly the devices set up so far */
    rc = init_device(b, d, err, cap);
    if (rc != TL_OK) {
      cpu_shutdown(b);
      return rc;
    }
  }
  *out = b;
  return TL_OK;
}

static int cpu_mem_info(tl_backend *b, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                        char *err, size_t cap) {
  (void)err;
  (void)cap;
  pthread_mutex_lock(&b->acct_mu);
  *total_bytes = b->capacity_bytes;
  *free_bytes = b->capacity_bytes - b->used_bytes[dev];
  pthread_mutex_unlock(&b->acct_mu);
  return TL_OK;
}

static void cpu_ledger(tl_backend *b, uint64_t *count, uint64_t *bytes) {
  *count = b->internal_count;
  *bytes = b->internal_bytes;
}

/* The device's memory made (and touched) now, as a GPU's exists before the uploads. */
static int cpu_tensor_reserve(tl_backend *b, int dev, uint64_t bytes, char *err, size_t cap) {
  if (tl_heap_reserve(&b->dev[dev].heap, bytes) != 0) {
    return tl_fail(err, cap, TL_E_OOM, "cpu backend: cannot map %llu bytes for device %d",
                   (unsigned long long)bytes, dev);
  }
  return TL_OK;
}

static int cpu_set_lut(tl_backend *b, const float *lut, char *err, size_t cap) {
  (void)err;
  (void)cap;
  memcpy(b->lut, lut, sizeof b->lut); /* no group is open: workers are idle */
  return TL_OK;
}

const tl_backend_ops tl_backend_impl = {
    .name = "cpu",
    .reclaims = 1,
    .init = cpu_init,
    .shutdown = cpu_shutdown,
    .mem_info = cpu_mem_info,
    .tensor_upload = cpu_tensor_upload,
    .tensor_free = cpu_tensor_free,
    .group_issue = cpu_group_issue,
    .group_take = cpu_group_take,
    .ledger = cpu_ledger,
    .set_lut = cpu_set_lut,
    .tensor_upload_async = cpu_tensor_upload_async,
    .host_register = NULL, /* host memory is the device's: nothing to page-lock */
    .host_unregister = NULL,
    .tensor_reserve = cpu_tensor_reserve,
    .copy_bandwidth = cpu_copy_bandwidth,
    .dense_matvec = cpu_dense_matvec,
    .device_bytes = cpu_device_bytes,
};
