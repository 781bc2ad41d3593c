/*
 * The backend interface behind the dispatcher (native/src/dispatch.c).
 *
 * Role: what a backend folder (cpu/, cuda/, vulkan/) implements. The dispatcher has
 * already checked every argument (device index in range, format known, sizes consistent,
 * group rows <= TL_MAX_GROUP_ROWS, one open group per device, tensor belongs to this
 * engine and is live), so a backend trusts its input and reports only what the device
 * says. Every slot writes a message into err on failure and never aborts.
 *
 * Threading (what the dispatcher guarantees, what the backend must provide):
 *   - tensor_upload and tensor_free may run on an uploader thread while another thread
 *     runs group_issue / group_take on the same device: the backend guards whatever
 *     those share (allocation accounting, staging buffers, queues);
 *   - on one device, group_issue and group_take never overlap each other, and a
 *     group_take only follows a successful group_issue;
 *   - a tensor is never freed while a group that uses it is open;
 *   - set_lut only runs while no group is open on any device;
 *   - shutdown runs once, after every other call has returned and every asynchronous
 *     upload was reported done; a group may still be open (issued, never taken):
 *     shutdown waits for it and releases everything;
 *   - a tensor is freed only after its asynchronous upload was reported done;
 *   - dense_matvec runs on the decode thread, while a group may be open on the same
 *     device; its tensor is never freed while it runs.
 * Capacity: when capacity_bytes > 0 the dispatcher charges tensor footprints against it
 * and answers mem_info itself; a backend may enforce it too (same rule, same result).
 */
#ifndef TIERLAB_BACKEND_H
#define TIERLAB_BACKEND_H

#include "../include/tierlab.h"

typedef struct tl_backend tl_backend;

/* Where the upload of a tensor stands (dispatcher only, under the engine's mu). */
typedef enum tl_upload_state {
  TL_UPLOAD_DONE = 0, /* bytes on the device (every synchronous upload) */
  TL_UPLOAD_PENDING = 1, /* tensor_upload_async started, tl_upload_done not yet called */
  TL_UPLOAD_FAILED = 2 /* the asynchronous copy failed: the tensor can only be freed */
} tl_upload_state;

/* What the dispatcher knows about a tensor; the backend hangs its own state off impl. */
struct tl_tensor {
  tl_engine *owner;
  int dev, fmt, rows, cols, group;
  uint64_t footprint_bytes; /* what the ledger charged: weights + scales, rounded */
  void *impl; /* backend state (device pointers, arena offsets) */
  uint32_t magic; /* TL_TENSOR_MAGIC while live; cleared on free */
  int group_uses; /* dispatcher only: open groups that reference this tensor */
  int dense_uses; /* dispatcher only: dense GEMVs reading it now */
  /* dispatcher only: an upload from a RAM copy, until the backend reports it */
  tl_upload_state upload;
  uint64_t tag; /* completion tag (0: none) */
  tl_ram *upload_src; /* counted while PENDING, so the bytes outlive the copy */
};
#define TL_TENSOR_MAGIC 0x544c5445u

/* In a RAM copy the scales follow the weights at the next multiple of TL_SPAN_ALIGN, so
 * one copy of span_bytes from data moves both; a backend that lays its tensor out the
 * same way (scales at tl_span_scales_at(data_bytes)) copies once. */
#define TL_SPAN_ALIGN 64
static inline size_t tl_span_scales_at(size_t data_bytes) {
  return (data_bytes + TL_SPAN_ALIGN - 1) / TL_SPAN_ALIGN * TL_SPAN_ALIGN;
}

/* What an upload from a RAM copy reads: engine-owned host memory that stays unchanged
 * and alive until the backend calls tl_upload_done. pin is the backend's own token for
 * the chunk holding it (from host_register), or NULL when it is pageable; data_at is
 * the span's offset from that chunk's base. */
typedef struct tl_host_src {
  const void *data; /* the span starts with the weights */
  size_t data_bytes;
  const float *scales; /* == data + tl_span_scales_at(data_bytes) */
  size_t nscales;
  size_t span_bytes; /* tl_span_scales_at(data_bytes) + nscales * 4 */
  void *pin;
  uint64_t data_at;
} tl_host_src;

typedef struct tl_backend_ops {
  const char *name;
  int reclaims; /* 1: free returns memory; 0: fill-once arena */
  /* Creates backend state for the device list; capacity_bytes 0 = real memory. owner is
   * the engine to name in tl_upload_done / tl_group_done (never dereferenced). */
  int (*init)(tl_backend **out, tl_engine *owner, const int *devices, int ndevices,
              uint64_t capacity_bytes, char *err, size_t cap);
  void (*shutdown)(tl_backend *b); /* destroys every object it created */
  int (*mem_info)(tl_backend *b, int dev, uint64_t *free_bytes, uint64_t *total_bytes, char *err,
                  size_t cap);
  int (*tensor_upload)(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                       const float *scales, size_t nscales, char *err, size_t cap);
  void (*tensor_free)(tl_backend *b, tl_tensor *t);
  /* On success the backend calls tl_group_done(owner, dev, tag, ...) once the device
   * has finished the group (tag passed through unchanged, 0 included). */
  int (*group_issue)(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                     tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                     size_t cap);
  /* Waits for the open group and copies n*hidden floats to y. On failure y is left
   * untouched; either way the group is closed afterwards. */
  int (*group_take)(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap);
  /* The backend's own internal allocations (group buffers, tables), NOT the tensors:
   * the dispatcher counts tensors itself. Fixed from init to shutdown. */
  void (*ledger)(tl_backend *b, uint64_t *count, uint64_t *bytes);
  /* Copies the SiLU table (TL_SILU_LUT_SIZE finite floats) to every device. */
  int (*set_lut)(tl_backend *b, const float *lut, char *err, size_t cap);
  /* Starts copying src into the new tensor t and returns at once. On success the backend
   * calls tl_upload_done(t, ...) exactly once, from any thread and holding none of its
   * own locks, when the bytes are on the device or the copy failed; a group issued with
   * t meanwhile must run after the copy (device-side ordering, no host wait needed). On
   * failure it returns the status, keeps nothing and never calls tl_upload_done. */
  int (*tensor_upload_async)(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                             size_t cap);
  /* Optional (NULL: RAM copies stay pageable). Page-locks [p, p + bytes) (page-aligned)
   * for the backend's devices; *pin is the backend's token, handed back in tl_host_src
   * and to host_unregister. A failure is no error for the engine: the chunk stays
   * pageable and uploads from it take the backend's staging path. */
  int (*host_register)(tl_backend *b, void *p, size_t bytes, void **pin, char *err, size_t cap);
  void (*host_unregister)(tl_backend *b, void *pin);
  /* tl_tensor_reserve (arguments checked); may be NULL when uploads allocate nothing
   * worth doing early. */
  int (*tensor_reserve)(tl_backend *b, int dev, uint64_t bytes, char *err, size_t cap);
  /* tl_copy_bandwidth's measurement (arguments checked). */
  int (*copy_bandwidth)(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                        char *err, size_t cap);
  /* y[r] = MATH.md's format-1 dot of row r of w (a landed format-1 tensor on dev, rows <=
   * TL_MAX_DENSE_ROWS, cols <= TL_MAX_HIDDEN) with qx (cols int8) and exponent e, for
   * every row; returns with y written. It must use the device's own dense buffers: a
   * group may be in flight on dev meanwhile, and its buffers are that group's alone. The
   * dispatcher runs one at a time per device. NULL: the backend has no dense GEMV. */
  int (*dense_matvec)(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                      char *err, size_t cap);
  /* tl_device_bytes: device memory the backend holds for tensors on dev (its own count). */
  uint64_t (*device_bytes)(tl_backend *b, int dev);
} tl_backend_ops;

/* Completion callbacks into the dispatcher (dispatch_async.c), callable from any thread
 * that holds no backend lock:
 *   tl_upload_done: t's asynchronous copy finished (status TL_OK) or failed (msg says
 *     why); after it returns the backend must not touch src any more;
 *   tl_group_done: the group issued on dev with this tag finished on the device (status
 *     TL_OK) or failed; once per successful group_issue, at any time before the
 *     backend's shutdown returns (take does not have to wait for it).
 */
void tl_upload_done(tl_tensor *t, int status, const char *msg);
void tl_group_done(tl_engine *owner, int dev, uint64_t tag, int status, const char *msg);

/* Each backend library defines exactly one of these; the dispatcher links to it. */
extern const tl_backend_ops tl_backend_impl;

/* Helpers every backend may use (native/src/errors.c). */
/* Writes the message (printf format) into err (if err and cap > 0) and returns code. */
int tl_fail(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* err[0] = 0 when there is a buffer (every API call starts with it). */
void tl_clear_err(char *err, size_t cap);

#endif
