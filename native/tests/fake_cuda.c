/*
 * A host-only stand-in for the part of the CUDA runtime the CUDA backend uses, so the
 * backend's host code (streams, events, the reapers, the tensor heap, page-locking,
 * staged uploads) runs under ASan, UBSan and TSan on a machine without a GPU.
 *
 * Role: compiled against the real cuda_runtime_api.h (so every signature is the
 * runtime's), linked instead of libcudart into build/fake_cuda/ (make cuda-fake-test).
 * Model: a device is host memory; a stream is a thread running its queue of operations
 * in order (copies sleep TIERLAB_FAKE_CUDA_DELAY_US, default 20, to widen races); an
 * event completes when the stream reaches its record; cudaStreamWaitEvent makes a
 * stream wait for the event state captured at the call (as CUDA does); the expert
 * kernels (groups and the dense GEMV) are the CPU math of expert_math.c, and a host
 * function runs in stream order. TIERLAB_FAKE_CUDA_FAIL_COPY=N makes the
 * N-th asynchronous copy submitted fail (its stream and later events then report the
 * error);
 * TIERLAB_FAKE_CUDA_MEMORY caps each device's memory (bytes).
 * What it does not model: timing, sticky context errors, memory types (a device
 * pointer is any host pointer). It proves host logic, not GPU behaviour.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/cuda_rows.h"
#include "fake_cuda.h"
#include "../src/expert_math.h"

#define FAKE_DEVICES_MAX 8

typedef struct fake_event {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t recorded, completed; /* records enqueued, and reached */
  cudaError_t error; /* of the stream when the last record was reached */
} fake_event;

typedef enum { OP_COPY, OP_RECORD, OP_WAIT, OP_KERNEL, OP_DENSE, OP_DELAY } op_kind;

typedef struct fake_op {
  op_kind kind;
  void *dst;
  const void *src;
  size_t n;
  fake_event *ev;
  uint64_t seq;
  /* OP_KERNEL */
  const tl_cuda_row *rows;
  int nrows, hidden;
  const float *x, *lut;
  float *y;
  /* OP_DENSE */
  tl_cuda_wref w;
  const int8_t *qx;
  int e;
  /* OP_DELAY */
  long us;
  struct fake_op *next;
} fake_op;

struct CUstream_st {
  int device;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  fake_op *head, *tail;
  uint64_t queued, done;
  int stop;
  cudaError_t error;
  struct CUstream_st *next_of_device;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *g_streams[FAKE_DEVICES_MAX]; /* g_mu */
static uint64_t g_used[FAKE_DEVICES_MAX]; /* g_mu */
static uint64_t g_copies; /* g_mu: async copies submitted */
static pthread_cond_t g_copy_gate = PTHREAD_COND_INITIALIZER; /* g_mu */
static int g_copies_stopped; /* g_mu: no copy runs while set (fake_cuda.h) */

uint64_t fake_cuda_async_copies(void) {
  pthread_mutex_lock(&g_mu);
  uint64_t n = g_copies;
  pthread_mutex_unlock(&g_mu);
  return n;
}

void fake_cuda_stop_copies(int stop) {
  pthread_mutex_lock(&g_mu);
  g_copies_stopped = stop;
  pthread_cond_broadcast(&g_copy_gate);
  pthread_mutex_unlock(&g_mu);
}
static _Thread_local int t_device;
static _Thread_local cudaError_t t_last;

static long env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' ? atol(v) : fallback;
}

static cudaError_t fail(cudaError_t e) {
  t_last = e;
  return e;
}

/* ---- devices and errors ---- */

cudaError_t cudaGetDeviceCount(int *count) {
  *count = (int)env_long("TIERLAB_FAKE_CUDA_DEVICES", 2);
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  int n = 0;
  cudaGetDeviceCount(&n);
  if (device < 0 || device >= n || device >= FAKE_DEVICES_MAX) {
    return fail(cudaErrorInvalidDevice);
  }
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = t_last;
  t_last = cudaSuccess;
  return e;
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    default:
      return "fake cuda error";
  }
}

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    default:
      return "cudaErrorUnknown";
  }
}

/* ---- memory ---- */

#define FAKE_HEADER 64 /* the size, kept in front of each device allocation */

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  const uint64_t cap = (uint64_t)env_long("TIERLAB_FAKE_CUDA_MEMORY", 8l << 30);
  pthread_mutex_lock(&g_mu);
  int full = size > cap - g_used[t_device];
  if (!full) g_used[t_device] += size;
  pthread_mutex_unlock(&g_mu);
  unsigned char *p = full ? NULL : malloc(size + FAKE_HEADER);
  if (p == NULL) {
    if (!full) {
      pthread_mutex_lock(&g_mu);
      g_used[t_device] -= size;
      pthread_mutex_unlock(&g_mu);
    }
    *devPtr = NULL;
    return fail(cudaErrorMemoryAllocation);
  }
  memcpy(p, &size, sizeof size);
  *devPtr = p + FAKE_HEADER;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void);

cudaError_t cudaFree(void *devPtr) {
  if (devPtr == NULL) return cudaSuccess;
  cudaDeviceSynchronize(); /* as cudaFree does */
  unsigned char *p = (unsigned char *)devPtr - FAKE_HEADER;
  size_t size;
  memcpy(&size, p, sizeof size);
  pthread_mutex_lock(&g_mu);
  g_used[t_device] -= size;
  pthread_mutex_unlock(&g_mu);
  free(p);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  const uint64_t cap = (uint64_t)env_long("TIERLAB_FAKE_CUDA_MEMORY", 8l << 30);
  pthread_mutex_lock(&g_mu);
  *total = (size_t)cap;
  *free_bytes = (size_t)(cap - g_used[t_device]);
  pthread_mutex_unlock(&g_mu);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  *ptr = malloc(size);
  return *ptr != NULL ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void *ptr) {
  free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  (void)flags;
  if (ptr == NULL || size == 0) return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
  return ptr != NULL ? cudaSuccess : fail(cudaErrorInvalidValue);
}

/* ---- events ---- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  (void)flags;
  fake_event *e = calloc(1, sizeof *e);
  if (e == NULL) return fail(cudaErrorMemoryAllocation);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *event = (cudaEvent_t)e;
  return cudaSuccess;
}

static void event_wait(fake_event *e, uint64_t seq) {
  pthread_mutex_lock(&e->mu);
  while (e->completed < seq) pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  fake_event *e = (fake_event *)event;
  pthread_mutex_lock(&e->mu);
  uint64_t seq = e->recorded; /* the state captured now */
  pthread_mutex_unlock(&e->mu);
  event_wait(e, seq);
  pthread_mutex_lock(&e->mu);
  cudaError_t err = e->error;
  pthread_mutex_unlock(&e->mu);
  return err != cudaSuccess ? fail(err) : cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  fake_event *e = (fake_event *)event;
  if (e == NULL) return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&e->mu);
  uint64_t seq = e->recorded;
  pthread_mutex_unlock(&e->mu);
  event_wait(e, seq); /* CUDA frees it once pending work is done */
  pthread_cond_destroy(&e->cv);
  pthread_mutex_destroy(&e->mu);
  free(e);
  return cudaSuccess;
}

/* ---- streams ---- */

static void run_kernel(const fake_op *op) {
  int widest = 1;
  for (int r = 0; r < op->nrows; r++) {
    if (op->rows[r].width > widest) widest = op->rows[r].width;
  }
  int8_t *q = malloc((size_t)(op->hidden > widest ? op->hidden : widest));
  float *h = malloc((size_t)widest * sizeof(float));
  for (int r = 0; q != NULL && h != NULL && r < op->nrows; r++) {
    const tl_cuda_row *row = &op->rows[r];
    tl_expert_ref ex = {
        .gate = {row->gate.w, row->gate.s, row->gate.fmt, row->gate.rows, row->gate.cols,
                 row->gate.group},
        .up = {row->up.w, row->up.s, row->up.fmt, row->up.rows, row->up.cols, row->up.group},
        .down = {row->down.w, row->down.s, row->down.fmt, row->down.rows, row->down.cols,
                 row->down.group},
        .hidden = op->hidden,
        .width = row->width};
    tl_expert_run(&ex, op->lut, op->x + (size_t)r * (size_t)op->hidden,
                  op->y + (size_t)r * (size_t)op->hidden, q, h);
  }
  free(q);
  free(h);
}

static void run_op(struct CUstream_st *s, const fake_op *op) {
  switch (op->kind) {
    case OP_COPY: {
      pthread_mutex_lock(&g_mu);
      while (g_copies_stopped) pthread_cond_wait(&g_copy_gate, &g_mu);
      pthread_mutex_unlock(&g_mu);
      usleep((useconds_t)env_long("TIERLAB_FAKE_CUDA_DELAY_US", 20));
      if ((long)op->seq == env_long("TIERLAB_FAKE_CUDA_FAIL_COPY", 0)) {
        s->error = cudaErrorLaunchFailure;
      } else {
        memcpy(op->dst, op->src, op->n);
      }
      break;
    }
    case OP_RECORD:
      pthread_mutex_lock(&op->ev->mu);
      op->ev->completed = op->seq;
      op->ev->error = s->error;
      pthread_cond_broadcast(&op->ev->cv);
      pthread_mutex_unlock(&op->ev->mu);
      break;
    case OP_WAIT:
      event_wait(op->ev, op->seq);
      break;
    case OP_KERNEL:
      if (s->error == cudaSuccess) run_kernel(op);
      break;
    case OP_DENSE:
      if (s->error == cudaSuccess) {
        tl_dense_rows(op->w.w, op->w.s, op->w.rows, op->w.cols, op->qx, op->e, op->y);
      }
      break;
    case OP_DELAY: {
      struct timespec ts = {.tv_sec = op->us / 1000000, .tv_nsec = (op->us % 1000000) * 1000};
      while (nanosleep(&ts, &ts) != 0) {}
      break;
    }
  }
}

static void *stream_main(void *arg) {
  struct CUstream_st *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->head == NULL && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
    fake_op *op = s->head;
    if (op == NULL) break;
    pthread_mutex_unlock(&s->mu);
    run_op(s, op);
    pthread_mutex_lock(&s->mu);
    s->head = op->next;
    if (s->head == NULL) s->tail = NULL;
    s->done++;
    pthread_cond_broadcast(&s->cv);
    free(op);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

static cudaError_t enqueue(cudaStream_t stream, fake_op op) {
  struct CUstream_st *s = stream;
  if (s == NULL) return fail(cudaErrorInvalidValue); /* no legacy stream in the backend */
  fake_op *o = malloc(sizeof *o);
  if (o == NULL) return fail(cudaErrorMemoryAllocation);
  *o = op;
  o->next = NULL;
  pthread_mutex_lock(&s->mu);
  if (s->tail != NULL) {
    s->tail->next = o;
  } else {
    s->head = o;
  }
  s->tail = o;
  s->queued++;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  (void)flags;
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (s == NULL) return fail(cudaErrorMemoryAllocation);
  s->device = t_device;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  if (pthread_create(&s->thread, NULL, stream_main, s) != 0) {
    free(s);
    return fail(cudaErrorMemoryAllocation);
  }
  pthread_mutex_lock(&g_mu);
  s->next_of_device = g_streams[t_device];
  g_streams[t_device] = s;
  pthread_mutex_unlock(&g_mu);
  *pStream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  struct CUstream_st *s = stream;
  if (s == NULL) return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&s->mu);
  uint64_t want = s->queued;
  while (s->done < want) pthread_cond_wait(&s->cv, &s->mu);
  cudaError_t e = s->error;
  pthread_mutex_unlock(&s->mu);
  return e != cudaSuccess ? fail(e) : cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  pthread_mutex_lock(&g_mu);
  struct CUstream_st *list = g_streams[t_device];
  pthread_mutex_unlock(&g_mu);
  /* streams of a device are only destroyed by the thread that syncs them here */
  for (struct CUstream_st *s = list; s != NULL; s = s->next_of_device) {
    (void)cudaStreamSynchronize(s);
  }
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  struct CUstream_st *s = stream;
  if (s == NULL) return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&g_mu);
  struct CUstream_st **at = &g_streams[s->device];
  for (; *at != NULL; at = &(*at)->next_of_device) {
    if (*at == s) {
      *at = s->next_of_device;
      break;
    }
  }
  pthread_mutex_unlock(&g_mu);
  pthread_mutex_lock(&s->mu);
  s->stop = 1; /* the thread runs what is queued, then leaves */
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  (void)kind;
  pthread_mutex_lock(&g_mu);
  uint64_t seq = ++g_copies; /* numbered in submission order, whatever stream runs first */
  pthread_mutex_unlock(&g_mu);
  return enqueue(stream,
                 (fake_op){.kind = OP_COPY, .dst = dst, .src = src, .n = count, .seq = seq});
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  (void)kind;
  cudaDeviceSynchronize();
  memcpy(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void *dst, int value, size_t count) {
  cudaDeviceSynchronize();
  memset(dst, value, count);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  fake_event *e = (fake_event *)event;
  if (e == NULL) return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&e->mu);
  uint64_t seq = ++e->recorded;
  pthread_mutex_unlock(&e->mu);
  return enqueue(stream, (fake_op){.kind = OP_RECORD, .ev = e, .seq = seq});
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  (void)flags;
  fake_event *e = (fake_event *)event;
  if (e == NULL) return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&e->mu);
  uint64_t seq = e->recorded; /* the state captured now, as CUDA does */
  pthread_mutex_unlock(&e->mu);
  return enqueue(stream, (fake_op){.kind = OP_WAIT, .ev = e, .seq = seq});
}

/* ---- the kernels (cuda_rows.h) ---- */

cudaError_t tl_cuda_launch_group(const tl_cuda_row *rows, int n, int hidden, int max_width,
                                 const float *x, float *y, float *h, int8_t *qx, int8_t *qh, int *e,
                                 const float *lut, cudaStream_t stream) {
  (void)max_width;
  (void)h;
  (void)qx;
  (void)qh;
  (void)e;
  return enqueue(stream,
                 (fake_op){.kind = OP_KERNEL,
                           .rows = rows,
                           .nrows = n,
                           .hidden = hidden,
                           .x = x,
                           .y = y,
                           .lut = lut});
}

cudaError_t tl_cuda_launch_dense(tl_cuda_wref w, const int8_t *qx, int e, float *y,
                                 cudaStream_t stream) {
  return enqueue(stream, (fake_op){.kind = OP_DENSE, .w = w, .qx = qx, .e = e, .y = y});
}

/* the fake kernels are expert_math.c, which reads the table itself */
cudaError_t tl_cuda_set_e4m3(const float *table) {
  (void)table;
  return cudaSuccess;
}

/* the device-side wait of a slow bus or device: this stream's thread sleeps */
cudaError_t tl_cuda_launch_delay(long us, cudaStream_t stream) {
  return enqueue(stream, (fake_op){.kind = OP_DELAY, .us = us});
}
