/*
 * The CPU reference backend's internal state.
 *
 * Role: a "device" is a region of host memory with a capacity (capacity_bytes, or
 * CPU_DEFAULT_CAPACITY when 0) and one worker thread that runs that device's expert
 * group asynchronously, so issue returns at once and take waits, as on a GPU.
 * Tensor memory comes from a heap of pre-faulted host memory (block_heap.c), as a GPU's
 * memory exists before the first upload; asynchronous uploads are copied by a pool of
 * copy threads (cpu_copy.c), and a group's worker waits until its tensors have landed.
 * Invariants: the worker owns x/y/q/h while a job is PENDING; the issuing thread owns
 * them otherwise; the dense GEMV (decode thread, any phase) owns dense_in/dense_out (phase changes
 * happen under the device mutex, which orders the hand-over); allocation accounting has its own
 * mutex because uploads run on the tier's uploader thread; a tensor's `ready` flips once, 0 -> 1,
 * under the copy mutex.
 */
#ifndef TIERLAB_CPU_BACKEND_H
#define TIERLAB_CPU_BACKEND_H

#include <pthread.h>

#include "../src/backend.h"
#include "../src/block_heap.h"
#include "../src/expert_math.h"

/* Default device size when capacity_bytes is 0: 1 GiB per simulated device. */
#define CPU_DEFAULT_CAPACITY (1ull << 30)
/* Simulated device ids are small: 0..CPU_MAX_DEVICE_ID. */
#define CPU_MAX_DEVICE_ID 63

/* Copy threads for asynchronous uploads: TIERLAB_CPU_COPY_THREADS (1..16), default 2. */
#define CPU_COPY_THREADS_MAX 16
#define CPU_COPY_THREADS_DEFAULT 2
/* Uploads of at most this many bytes are copied by the calling thread. */
#define CPU_INLINE_COPY_BYTES (64u << 10)
/* TIERLAB_CPU_COPY_DELAY_US and TIERLAB_CPU_GROUP_DELAY_US (0..1000000, default 0): each
 * copy, and each group, waits this long before it runs (a slow bus, a slow device), so
 * the engine really meets tensors still uploading and groups still computing. */
#define CPU_DELAY_MAX_US 1000000
long cpu_delay_from_env(const char *name);
void cpu_sleep_us(long us);

typedef enum cpu_phase { CPU_IDLE = 0, CPU_PENDING, CPU_DONE } cpu_phase;

typedef struct cpu_device {
  tl_engine *owner;
  pthread_t thread;
  int thread_started;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* PENDING (for the worker), DONE (for take), stop */
  cpu_phase phase;
  int stop;
  int n, hidden;
  uint64_t tag; /* of the group in flight (tl_group_done) */
  long delay_us; /* TIERLAB_CPU_GROUP_DELAY_US */
  tl_expert_ref rows[TL_MAX_GROUP_ROWS];
  const struct cpu_tensor *uses[3 * TL_MAX_GROUP_ROWS]; /* the group's tensors */
  /* group buffers, sized once for the largest group (see TL_MAX_HIDDEN) */
  float *x, *y; /* TL_MAX_GROUP_ROWS * TL_MAX_HIDDEN */
  int8_t *q; /* max(TL_MAX_HIDDEN, TL_MAX_WIDTH) */
  float *h; /* TL_MAX_WIDTH */
  /* the dense GEMV's own buffers (never the group's: b86e55e) */
  int8_t *dense_in; /* TL_MAX_HIDDEN */
  float *dense_out; /* TL_MAX_DENSE_ROWS */
  const float *lut; /* the backend's table */
  struct tl_backend *b;
  tl_heap heap; /* this device's tensor memory: pre-faulted host chunks (cpu_backend.c) */
} cpu_device;

typedef struct cpu_copy_pool {
  pthread_mutex_t mu;
  pthread_cond_t work; /* a job queued, or stop */
  pthread_cond_t ready; /* a tensor landed */
  struct cpu_tensor *head, *tail; /* FIFO of jobs */
  int stop;
  int inited; /* mutex and conditions exist */
  int nthreads;
  long delay_us; /* TIERLAB_CPU_COPY_DELAY_US */
  pthread_t threads[CPU_COPY_THREADS_MAX];
} cpu_copy_pool;

struct tl_backend {
  int ndev;
  tl_engine *owner;
  cpu_device dev[TL_MAX_DEVICES];
  cpu_copy_pool copy;
  uint64_t capacity_bytes; /* per device, CPU_DEFAULT_CAPACITY when 0 was asked */
  pthread_mutex_t acct_mu;
  uint64_t used_bytes[TL_MAX_DEVICES]; /* tensor footprints, guarded by acct_mu */
  uint64_t internal_count, internal_bytes; /* group buffers: fixed after init */
  float lut[TL_SILU_LUT_SIZE];
};

/* What a CPU tensor holds: host copies of the weights and scales, in one block. */
typedef struct cpu_tensor {
  void *w;
  float *s;
  size_t block_bytes;
  int from_heap; /* else malloc'd */
  int ready; /* copy mutex: the bytes are in place */
  /* an asynchronous upload's job (copy threads): one span, weights and scales */
  tl_tensor *t;
  const void *src;
  size_t span_bytes;
  struct cpu_tensor *next;
} cpu_tensor;

/* cpu_worker.c */
int cpu_worker_start(tl_backend *b, cpu_device *d, char *err, size_t cap);
void cpu_worker_stop(cpu_device *d); /* finishes a pending job first */
int cpu_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                    tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                    size_t cap);
int cpu_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap);

/* cpu_tensor.c */
int cpu_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                      const float *scales, size_t nscales, char *err, size_t cap);
int cpu_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                            size_t cap);
void cpu_tensor_free(tl_backend *b, tl_tensor *t);
int cpu_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                     char *err, size_t cap);
uint64_t cpu_device_bytes(tl_backend *b, int dev);

/* cpu_copy.c */
int cpu_copy_start(cpu_copy_pool *pool, char *err, size_t cap);
void cpu_copy_queue(cpu_copy_pool *pool, cpu_tensor *job);
/* With pool->mu NOT held: waits until every tensor of uses[0..n) is ready. */
void cpu_copy_wait_ready(cpu_copy_pool *pool, const cpu_tensor *const *uses, int n);
void cpu_copy_stop(cpu_copy_pool *pool); /* after the queued jobs ran */
int cpu_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                       char *err, size_t cap);

#endif
