/*
 * The CPU reference backend's internal state.
 *
 * Role: a "device" is a region of host memory with a capacity (capacity_bytes, or
 * CPU_DEFAULT_CAPACITY when 0) and one worker thread that runs that device's expert
 * group asynchronously, so issue returns at once and take waits, as on a GPU.
 * Invariants: the worker owns x/y/q/h while a job is PENDING; the issuing thread owns
 * them otherwise (phase changes happen under the device mutex, which orders the
 * hand-over); allocation accounting has its own mutex because uploads run on the
 * tier's uploader thread.
 */
#ifndef TIERLAB_CPU_BACKEND_H
#define TIERLAB_CPU_BACKEND_H

#include <pthread.h>

#include "../src/backend.h"
#include "../src/expert_math.h"

/* Default device size when capacity_bytes is 0: 1 GiB per simulated device. */
#define CPU_DEFAULT_CAPACITY (1ull << 30)
/* Simulated device ids are small: 0..CPU_MAX_DEVICE_ID. */
#define CPU_MAX_DEVICE_ID 63

typedef enum cpu_phase { CPU_IDLE = 0, CPU_PENDING, CPU_DONE } cpu_phase;

typedef struct cpu_device {
  pthread_t thread;
  int thread_started;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* PENDING (for the worker), DONE (for take), stop */
  cpu_phase phase;
  int stop;
  int n, hidden;
  tl_expert_ref rows[TL_MAX_GROUP_ROWS];
  /* group buffers, sized once for the largest group (see TL_MAX_HIDDEN) */
  float *x, *y; /* TL_MAX_GROUP_ROWS * TL_MAX_HIDDEN */
  int8_t *q;    /* max(TL_MAX_HIDDEN, TL_MAX_WIDTH) */
  float *h;     /* TL_MAX_WIDTH */
  const float *lut; /* the backend's table */
} cpu_device;

struct tl_backend {
  int ndev;
  cpu_device dev[TL_MAX_DEVICES];
  uint64_t capacity_bytes; /* per device, CPU_DEFAULT_CAPACITY when 0 was asked */
  pthread_mutex_t acct_mu;
  uint64_t used_bytes[TL_MAX_DEVICES]; /* tensor footprints, guarded by acct_mu */
  uint64_t internal_count, internal_bytes; /* group buffers: fixed after init */
  float lut[TL_SILU_LUT_SIZE];
};

/* What a CPU tensor holds: host copies of the weights and scales. */
typedef struct cpu_tensor {
  void *w;
  float *s;
} cpu_tensor;

/* cpu_worker.c */
int cpu_worker_start(tl_backend *b, cpu_device *d, char *err, size_t cap);
void cpu_worker_stop(cpu_device *d); /* finishes a pending job first */
int cpu_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate,
                    tl_tensor *const *up, tl_tensor *const *down, const float *x,
                    int hidden, char *err, size_t cap);
int cpu_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err,
                   size_t cap);

/* cpu_tensor.c */
int cpu_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                      const float *scales, size_t nscales, char *err, size_t cap);
void cpu_tensor_free(tl_backend *b, tl_tensor *t);

#endif
