/*
 * The CUDA backend's internal state.
 *
 * Role: per device (an index into the engine's list, mapped to a CUDA ordinal) a group
 * stream and CUDA_UPLOAD_STREAMS upload streams, a tensor heap over big cudaMalloc
 * chunks (block_heap.c: no driver call per tensor), a pinned staging buffer for
 * uploads from pageable memory, pinned group input/output blocks, device group buffers
 * sized once at init for the largest group (TL_MAX_GROUP_ROWS rows of TL_MAX_HIDDEN /
 * TL_MAX_WIDTH), so the ledger's baseline never moves and issue never allocates, and
 * two reaper threads (cuda_reaper.c) that wait on events so no caller has to: one
 * reports uploads as they land, one reports finished groups; and the dense GEMV's own
 * stream and buffers, so it runs beside an open group without touching its buffers.
 * Invariants: every entry point calls cudaSetDevice first (the current device is
 * per host thread, and uploads run on another thread than groups); upload_mu
 * serialises submissions of uploads to one device (they share the staging buffer and
 * the stream choice); group state is only touched by issue/take, which the dispatcher
 * never runs concurrently on a device; a tensor's `landed` turns 1 once, after its
 * event completed, and is read without a lock (atomic builtins).
 */
#ifndef TIERLAB_CUDA_BACKEND_H
#define TIERLAB_CUDA_BACKEND_H

#include <pthread.h>

#include "../src/backend.h"
#include "../src/block_heap.h"
#include "cuda_rows.h"

/* Pinned staging per device: two halves, so the host copy into one half overlaps the
 * DMA out of the other (uploads from pageable memory only). */
#define CUDA_STAGE_BYTES (64ull << 20)
/* Upload streams per device: copies from pinned RAM alternate between them, so one
 * copy's setup overlaps the previous one's transfer. */
#define CUDA_UPLOAD_STREAMS 2
/* Joining uploads into longer copies (cuda_hold.c): hold while at least this many
 * copies are in flight; a held copy goes at this many bytes or tensors. */
#define CUDA_HOLD_LOW 2
#define CUDA_HOLD_BYTES (16ull << 20)
#define CUDA_HOLD_MAX 32

typedef struct cuda_tensor {
  void *d_w;
  float *d_s;
  size_t block_bytes; /* the heap block holding both */
  int from_heap; /* else cudaMalloc'd on its own */
  cudaEvent_t landed_event; /* asynchronous uploads: recorded after the copy */
  int landed; /* 1 once the copy completed (atomic) */
  tl_tensor *t;
  struct cuda_tensor *next; /* the upload reaper's FIFO */
  int ends_copy; /* the last tensor of a joined copy (cuda_hold.c) */
  int failed; /* its copy could not be submitted: reported so, with failure */
  char failure[TL_COMPLETION_MESSAGE];
} cuda_tensor;

/* The copy held back (cuda_hold.c), upload_mu: t[0..n) in order, bytes from src to dst. */
typedef struct cuda_held {
  const unsigned char *src;
  unsigned char *dst;
  size_t bytes;
  cuda_tensor *t[CUDA_HOLD_MAX];
  int n;
} cuda_held;

/* Waits, on its own thread, for what a device finishes, and reports it. */
typedef struct cuda_reaper {
  pthread_t thread;
  int started;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stop;
  cuda_tensor *head, *tail; /* uploads in flight, in submission order */
  int group_pending; /* a group issued, not yet reported */
  uint64_t group_tag;
} cuda_reaper;

typedef struct cuda_dev {
  int ordinal; /* CUDA device number */
  int index; /* in the engine's device list */
  int ready; /* upload_mu exists (streams and events: non-NULL once created) */
  struct tl_backend *b;
  cudaStream_t group_stream, upload_stream[CUDA_UPLOAD_STREAMS], dense_stream;
  int next_stream;
  cudaEvent_t group_done, stage_done[2];
  pthread_mutex_t upload_mu;
  cuda_held held; /* upload_mu */
  int copies_in_flight; /* upload_mu: joined copies submitted and not yet reported */
  tl_heap heap;
  cuda_reaper uploads, groups;
  /* device group buffers (see tl_cuda_launch_group) */
  float *d_x, *d_y, *d_h, *d_lut;
  int8_t *d_qx, *d_qh;
  int *d_e;
  tl_cuda_row *d_rows;
  /* pinned host blocks */
  float *h_x, *h_y;
  tl_cuda_row *h_rows;
  unsigned char *h_stage;
  /* the dense GEMV's own buffers and stream, never the group's (b86e55e) */
  int8_t *d_dense_in, *h_dense_in; /* TL_MAX_HIDDEN */
  float *d_dense_out, *h_dense_out; /* TL_MAX_DENSE_ROWS */
  uint64_t tensor_bytes; /* tensor blocks held (atomic): tl_device_bytes */
} cuda_dev;

struct tl_backend {
  int ndev;
  tl_engine *owner;
  int copy_threads; /* host threads filling the staging buffer (par_copy.h) */
  /* TIERLAB_CUDA_COPY_DELAY_US, TIERLAB_CUDA_GROUP_DELAY_US: every asynchronous copy, and
   * every group, waits this long on its stream first (a slow bus, a slow device: the
   * oracle's runs that must meet copies and groups still in flight) */
  long copy_delay_us, group_delay_us;
  cuda_dev dev[TL_MAX_DEVICES];
  uint64_t internal_count, internal_bytes; /* device buffers made at init */
};

/* cuda_errors.c: a CUDA failure as a tierlab status (allocation -> TL_E_OOM, else
 * TL_E_DEVICE) with cudaGetErrorString in the message; clears non-sticky errors. */
int cuda_fail(char *err, size_t cap, int ordinal, const char *what, cudaError_t rc);
#define CUDA_TRY(d, call)                                                         \
  do {                                                                            \
    cudaError_t rc_ = (call);                                                     \
    if (rc_ != cudaSuccess) return cuda_fail(err, cap, (d)->ordinal, #call, rc_); \
  } while (0)

/* cuda_tensor.c */
int cuda_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                       const float *scales, size_t nscales, char *err, size_t cap);
int cuda_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                             size_t cap);
void cuda_tensor_free(tl_backend *b, tl_tensor *t);
/* The tensor heap's chunks (cudaMalloc on the device of ctx, a cuda_dev). */
void *cuda_heap_map(void *ctx, size_t bytes);
void cuda_heap_unmap(void *ctx, void *p, size_t bytes);

/* cuda_group.c */
int cuda_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                     tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                     size_t cap);
int cuda_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap);

/* cuda_reaper.c */
int cuda_reapers_start(cuda_dev *d, char *err, size_t cap);
void cuda_reapers_stop(cuda_dev *d); /* after reporting what is pending */
/* Before a group's event is recorded again: waits until the last group was reported. */
void cuda_reap_group_wait_idle(cuda_dev *d);
void cuda_reap_group(cuda_dev *d, uint64_t tag); /* group_done is recorded */

/* cuda_hold.c: upload_mu held for add, release and reap_upload; landed and release_all
 * take it */
void cuda_reap_upload(cuda_dev *d, cuda_tensor *ct); /* its event is recorded */
void cuda_hold_add(cuda_dev *d, cuda_tensor *ct, const tl_host_src *src);
void cuda_hold_release(cuda_dev *d);
void cuda_hold_landed(cuda_dev *d);
void cuda_hold_release_all(cuda_dev *d);

/* cuda_dense.c */
int cuda_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                      char *err, size_t cap);
uint64_t cuda_device_bytes(tl_backend *b, int dev);

/* cuda_backend.c */
int cuda_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                        char *err, size_t cap);

#endif
