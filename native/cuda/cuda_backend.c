/*
 * The CUDA backend: lifecycle, memory info, ledger, SiLU table, and the vtable.
 * Tensors are in cuda_tensor.c, groups in cuda_group.c, kernels in expert_kernels.cu.
 *
 * Invariants: init checks every ordinal against cudaGetDeviceCount and either sets up
 * every device or releases all it made; shutdown stops the reapers (reporting a group
 * still in flight), synchronises each device before freeing and ignores errors
 * (nothing to report to); the ledger counts the device buffers made here (10 per
 * device), fixed after init (the tensor heap's chunks hold tensors, which the
 * dispatcher counts).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_backend.h"
#include "../src/e4m3.h"
#include "../src/par_copy.h"

/* cudaMalloc counted in the ledger. */
static int dev_alloc(tl_backend *b, cuda_dev *d, void **p, size_t bytes, const char *what,
                     char *err, size_t cap) {
  cudaError_t rc = cudaMalloc(p, bytes);
  if (rc != cudaSuccess) {
    *p = NULL;
    return cuda_fail(err, cap, d->ordinal, what, rc);
  }
  b->internal_count++;
  b->internal_bytes += bytes;
  return TL_OK;
}

static void release_device(cuda_dev *d) {
  cuda_reapers_stop(d); /* reports a group still in flight, and joins */
  if (cudaSetDevice(d->ordinal) != cudaSuccess) return;
  (void)cudaDeviceSynchronize();
  tl_heap_destroy(&d->heap); /* every tensor was freed by the dispatcher */
  void *dev_ptrs[] = {d->d_x,  d->d_y, d->d_h,    d->d_lut,      d->d_qx,
                      d->d_qh, d->d_e, d->d_rows, d->d_dense_in, d->d_dense_out};
  for (size_t i = 0; i < sizeof dev_ptrs / sizeof dev_ptrs[0]; i++) {
    if (dev_ptrs[i] != NULL) (void)cudaFree(dev_ptrs[i]);
  }
  void *host_ptrs[] = {d->h_x, d->h_y, d->h_rows, d->h_stage, d->h_dense_in, d->h_dense_out};
  for (size_t i = 0; i < sizeof host_ptrs / sizeof host_ptrs[0]; i++) {
    if (host_ptrs[i] != NULL) (void)cudaFreeHost(host_ptrs[i]);
  }
  cudaEvent_t events[] = {d->group_done, d->stage_done[0], d->stage_done[1]};
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
    if (events[i] != NULL) (void)cudaEventDestroy(events[i]);
  }
  /* NULL would name the legacy default stream: only destroy what was created */
  if (d->group_stream != NULL) (void)cudaStreamDestroy(d->group_stream);
  if (d->dense_stream != NULL) (void)cudaStreamDestroy(d->dense_stream);
  for (int i = 0; i < CUDA_UPLOAD_STREAMS; i++) {
    if (d->upload_stream[i] != NULL) (void)cudaStreamDestroy(d->upload_stream[i]);
  }
  if (d->ready) pthread_mutex_destroy(&d->upload_mu);
  (void)cudaGetLastError();
}

static void cuda_shutdown(tl_backend *b) {
  if (b == NULL) return;
  for (int i = 0; i < b->ndev; i++) release_device(&b->dev[i]);
  free(b);
}

static int init_queues(cuda_dev *d, char *err, size_t cap) {
  pthread_mutex_init(&d->upload_mu, NULL);
  d->ready = 1;
  CUDA_TRY(d, cudaStreamCreateWithFlags(&d->group_stream, cudaStreamNonBlocking));
  CUDA_TRY(d, cudaStreamCreateWithFlags(&d->dense_stream, cudaStreamNonBlocking));
  for (int i = 0; i < CUDA_UPLOAD_STREAMS; i++) {
    CUDA_TRY(d, cudaStreamCreateWithFlags(&d->upload_stream[i], cudaStreamNonBlocking));
  }
  CUDA_TRY(d, cudaEventCreateWithFlags(&d->group_done, cudaEventDisableTiming));
  CUDA_TRY(d, cudaEventCreateWithFlags(&d->stage_done[0], cudaEventDisableTiming));
  CUDA_TRY(d, cudaEventCreateWithFlags(&d->stage_done[1], cudaEventDisableTiming));
  return TL_OK;
}

static int init_device(tl_backend *b, cuda_dev *d, char *err, size_t cap) {
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  int rc = init_queues(d, err, cap);
  if (rc != TL_OK) return rc;
  const size_t rows = TL_MAX_GROUP_ROWS;
  const size_t xy = rows * TL_MAX_HIDDEN * sizeof(float);
  struct {
    void **p;
    size_t bytes;
    const char *what;
  } bufs[] = {
      {(void **)&d->d_x, xy, "cudaMalloc(group input)"},
      {(void **)&d->d_y, xy, "cudaMalloc(group output)"},
      {(void **)&d->d_h, rows * TL_MAX_WIDTH * sizeof(float), "cudaMalloc(group h)"},
      {(void **)&d->d_lut, TL_SILU_LUT_SIZE * sizeof(float), "cudaMalloc(silu table)"},
      {(void **)&d->d_qx, rows * TL_MAX_HIDDEN, "cudaMalloc(group qx)"},
      {(void **)&d->d_qh, rows * TL_MAX_WIDTH, "cudaMalloc(group qh)"},
      {(void **)&d->d_e, 2 * rows * sizeof(int), "cudaMalloc(group exponents)"},
      {(void **)&d->d_rows, rows * sizeof(tl_cuda_row), "cudaMalloc(group rows)"},
      {(void **)&d->d_dense_in, TL_MAX_HIDDEN, "cudaMalloc(dense input)"},
      {(void **)&d->d_dense_out, TL_MAX_DENSE_ROWS * sizeof(float), "cudaMalloc(dense output)"},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    rc = dev_alloc(b, d, bufs[i].p, bufs[i].bytes, bufs[i].what, err, cap);
    if (rc != TL_OK) return rc;
  }
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_x, xy));
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_y, xy));
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_rows, rows * sizeof(tl_cuda_row)));
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_stage, CUDA_STAGE_BYTES));
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_dense_in, TL_MAX_HIDDEN));
  CUDA_TRY(d, cudaMallocHost((void **)&d->h_dense_out, TL_MAX_DENSE_ROWS * sizeof(float)));
  CUDA_TRY(d, tl_cuda_set_e4m3(tl_e4m3_table));
  return cuda_reapers_start(d, err, cap);
}

/* 0..1000000 microseconds; anything else is 0 */
static long delay_from_env(const char *name) {
  const char *v = getenv(name);
  long us = v != NULL ? atol(v) : 0;
  return us < 0 || us > 1000000 ? 0 : us;
}

static int cuda_init(tl_backend **out, tl_engine *owner, const int *devices, int ndevices,
                     uint64_t capacity_bytes, char *err, size_t cap) {
  (void)capacity_bytes; /* the dispatcher enforces a cap; the real limit is cudaMalloc's */
  int count = 0;
  cudaError_t crc = cudaGetDeviceCount(&count);
  if (crc != cudaSuccess) return cuda_fail(err, cap, -1, "cudaGetDeviceCount", crc);
  for (int i = 0; i < ndevices; i++) {
    if (devices[i] >= count) {
      return tl_fail(err, cap, TL_E_ARG,
                     "cuda backend: device %d does not exist (%d CUDA device%s visible)",
                     devices[i], count, count == 1 ? "" : "s");
    }
  }
  tl_backend *b = calloc(1, sizeof *b);
  if (b == NULL) return tl_fail(err, cap, TL_E_OOM, "cuda backend: host out of memory");
  b->owner = owner;
  b->copy_threads = par_copy_threads_from_env();
  b->copy_delay_us = delay_from_env("TIERLAB_CUDA_COPY_DELAY_US");
  b->group_delay_us = delay_from_env("TIERLAB_CUDA_GROUP_DELAY_US");
  for (int i = 0; i < ndevices; i++) {
    cuda_dev *d = &b->dev[i];
    d->ordinal = devices[i];
    d->index = i;
    d->b = b;
    tl_heap_init(&d->heap, UINT64_MAX, cuda_heap_map, cuda_heap_unmap, d);
    b->ndev = i + 1; /* shutdown releases exactly what was set up */
    int rc = init_device(b, &b->dev[i], err, cap);
    if (rc != TL_OK) {
      cuda_shutdown(b);
      return rc;
    }
  }
  *out = b;
  return TL_OK;
}

static int cuda_mem_info(tl_backend *b, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                         char *err, size_t cap) {
  cuda_dev *d = &b->dev[dev];
  size_t f = 0, t = 0;
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  CUDA_TRY(d, cudaMemGetInfo(&f, &t));
  *free_bytes = f;
  *total_bytes = t;
  return TL_OK;
}

static void cuda_ledger(tl_backend *b, uint64_t *count, uint64_t *bytes) {
  *count = b->internal_count;
  *bytes = b->internal_bytes;
}

static int cuda_set_lut(tl_backend *b, const float *lut, char *err, size_t cap) {
  for (int i = 0; i < b->ndev; i++) {
    cuda_dev *d = &b->dev[i];
    CUDA_TRY(d, cudaSetDevice(d->ordinal));
    CUDA_TRY(d,
             cudaMemcpy(d->d_lut, lut, TL_SILU_LUT_SIZE * sizeof(float), cudaMemcpyHostToDevice));
  }
  return TL_OK;
}

/* RAM pool chunks, page-locked for every device (portable): copies from them are DMA. */
static int cuda_host_register(tl_backend *b, void *p, size_t bytes, void **pin, char *err,
                              size_t cap) {
  cuda_dev *d = &b->dev[0];
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  CUDA_TRY(d, cudaHostRegister(p, bytes, cudaHostRegisterPortable));
  *pin = p;
  return TL_OK;
}

static void cuda_host_unregister(tl_backend *b, void *pin) {
  if (cudaSetDevice(b->dev[0].ordinal) == cudaSuccess) (void)cudaHostUnregister(pin);
  (void)cudaGetLastError();
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* cudaMemcpy of `bytes` into one device buffer, reps times after a warm-up (as
 * tests/cuda_h2d_probe.cu measures), from cudaMallocHost or malloc'd memory. */
static int timed_copies(cuda_dev *d, void *dst, const void *src, uint64_t bytes, int reps,
                        double *gbps, char *err, size_t cap) {
  CUDA_TRY(d, cudaMemcpy(dst, src, (size_t)bytes, cudaMemcpyHostToDevice));
  double t0 = now_s();
  for (int i = 0; i < reps; i++) {
    CUDA_TRY(d, cudaMemcpy(dst, src, (size_t)bytes, cudaMemcpyHostToDevice));
  }
  double dt = now_s() - t0;
  *gbps = (double)bytes * reps / (dt > 0 ? dt : 1e-9) / 1e9;
  return TL_OK;
}

int cuda_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                        char *err, size_t cap) {
  cuda_dev *d = &b->dev[dev];
  CUDA_TRY(d, cudaSetDevice(d->ordinal));
  void *dst = NULL, *src = NULL;
  CUDA_TRY(d, cudaMalloc(&dst, (size_t)bytes));
  cudaError_t e = pinned ? cudaMallocHost(&src, (size_t)bytes) : cudaSuccess;
  if (!pinned) src = malloc((size_t)bytes);
  int rc = e != cudaSuccess ? cuda_fail(err, cap, d->ordinal, "cudaMallocHost", e)
      : src == NULL         ? tl_fail(err, cap, TL_E_OOM, "cuda backend: host out of memory")
                            : TL_OK;
  if (rc == TL_OK) {
    memset(src, 1, (size_t)bytes);
    rc = timed_copies(d, dst, src, bytes, reps, gbps, err, cap);
  }
  if (pinned && src != NULL) (void)cudaFreeHost(src);
  if (!pinned) free(src);
  (void)cudaFree(dst);
  return rc;
}

/* Device memory for the uploads to come, cudaMalloc'd now (tensor heap chunks). */
static int cuda_tensor_reserve(tl_backend *b, int dev, uint64_t bytes, char *err, size_t cap) {
  cuda_dev *d = &b->dev[dev];
  if (tl_heap_reserve(&d->heap, bytes) != 0) {
    return tl_fail(err, cap, TL_E_OOM, "cuda device %d: cannot reserve %llu bytes for tensors",
                   d->ordinal, (unsigned long long)bytes);
  }
  return TL_OK;
}

const tl_backend_ops tl_backend_impl = {
    .name = "cuda",
    .reclaims = 1,
    .init = cuda_init,
    .shutdown = cuda_shutdown,
    .mem_info = cuda_mem_info,
    .tensor_upload = cuda_tensor_upload,
    .tensor_free = cuda_tensor_free,
    .group_issue = cuda_group_issue,
    .group_take = cuda_group_take,
    .ledger = cuda_ledger,
    .set_lut = cuda_set_lut,
    .tensor_upload_async = cuda_tensor_upload_async,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .tensor_reserve = cuda_tensor_reserve,
    .copy_bandwidth = cuda_copy_bandwidth,
    .dense_matvec = cuda_dense_matvec,
    .device_bytes = cuda_device_bytes,
};
