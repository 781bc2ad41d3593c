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
 *   - shutdown runs once, after every other call has returned; a group may still be
 *     open (issued, never taken): shutdown waits for it and releases everything.
 * Capacity: when capacity_bytes > 0 the dispatcher charges tensor footprints against it
 * and answers mem_info itself; a backend may enforce it too (same rule, same result).
 */
#ifndef TIERLAB_BACKEND_H
#define TIERLAB_BACKEND_H

#include "../include/tierlab.h"

typedef struct tl_backend tl_backend;

/* What the dispatcher knows about a tensor; the backend hangs its own state off impl. */
struct tl_tensor {
  tl_engine *owner;
  int dev, fmt, rows, cols, group;
  uint64_t footprint_bytes; /* what the ledger charged: weights + scales, rounded */
  void *impl;               /* backend state (device pointers, arena offsets) */
  uint32_t magic;           /* TL_TENSOR_MAGIC while live; cleared on free */
  int group_uses;           /* dispatcher only: open groups that reference this tensor */
};
#define TL_TENSOR_MAGIC 0x544c5445u

typedef struct tl_backend_ops {
  const char *name;
  int reclaims; /* 1: free returns memory; 0: fill-once arena */
  /* Creates backend state for the device list; capacity_bytes 0 = real memory. */
  int (*init)(tl_backend **out, const int *devices, int ndevices, uint64_t capacity_bytes,
              char *err, size_t cap);
  void (*shutdown)(tl_backend *b); /* destroys every object it created */
  int (*mem_info)(tl_backend *b, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                  char *err, size_t cap);
  int (*tensor_upload)(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                       const float *scales, size_t nscales, char *err, size_t cap);
  void (*tensor_free)(tl_backend *b, tl_tensor *t);
  int (*group_issue)(tl_backend *b, int dev, int n, tl_tensor *const *gate,
                     tl_tensor *const *up, tl_tensor *const *down, const float *x,
                     int hidden, char *err, size_t cap);
  /* Waits for the open group and copies n*hidden floats to y. On failure y is left
   * untouched; either way the group is closed afterwards. */
  int (*group_take)(tl_backend *b, int dev, float *y, int n, int hidden, char *err,
                    size_t cap);
  /* The backend's own internal allocations (group buffers, tables), NOT the tensors:
   * the dispatcher counts tensors itself. Fixed from init to shutdown. */
  void (*ledger)(tl_backend *b, uint64_t *count, uint64_t *bytes);
  /* Copies the SiLU table (TL_SILU_LUT_SIZE finite floats) to every device. */
  int (*set_lut)(tl_backend *b, const float *lut, char *err, size_t cap);
} tl_backend_ops;

/* Each backend library defines exactly one of these; the dispatcher links to it. */
extern const tl_backend_ops tl_backend_impl;

/* Helpers every backend may use (native/src/errors.c). */
/* Writes the message (printf format) into err (if err and cap > 0) and returns code. */
int tl_fail(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
