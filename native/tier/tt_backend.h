/*
 * The backend interface of the C tier: what the tier asks of a device library.
 *
 * Role: the tier takes its world as a parameter (a struct of function pointers and a
 * context); it never asks which backend it runs on. Implementations: the fake backend
 * (fake_backend.c: a ledger, fault and delay hooks) and the adapter over the native
 * engine's C ABI (engine_backend.c: CPU, CUDA and Vulkan libraries).
 * Invariants the tier keeps, so a backend may trust them:
 *   - dev is in 0..devices-1, part in 0..2, n in 1..TT_GROUP_ROWS, hidden >= 1;
 *   - a handle passed back is one this backend returned and the tier has not freed;
 *   - at most one group is open per device; take follows issue on the same device;
 *   - a tensor an open group reads is not freed until that group is taken.
 * Every call may block; the tier calls `stage` with its lock held (the RAM bytes may not
 * outlive the caller's call) and every other call without it.
 * Optional slots (NULL allowed): host_alloc/host_free (default malloc/free), env_fault
 * (default: nothing fails), dense_upload/dense_gemv (default: no trunk on devices),
 * shutdown.
 */
#ifndef TT_BACKEND_H
#define TT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tt_trunk_offer;

/* The host arrays init makes (the tier's own tables), as host_alloc names them. */
enum { TT_HOST_SLOTS = 0, TT_HOST_RING = 1 };

/* Steps of init that use the operating system, not the backend: env_fault may fail them
 * (tests of init's rollback). */
enum { TT_ENV_SYNC_INIT = 0, TT_ENV_THREAD_START = 1 };

typedef struct tt_backend {
  void *ctx;
  int devices; /* 1..TT_MAX_DEVICES */
  int reclaims; /* 1: a free returns device memory (swaps allowed); 0: a fill-once arena */
  /* 0 and the device's free and total bytes, or nonzero when it cannot say */
  int (*mem_info)(void *ctx, int dev, uint64_t *free_bytes, uint64_t *total_bytes);
  /* A host staging copy of the expert whose RAM weights `ram` the engine lent for this
   * call only: NULL when it cannot be made. Called with the tier's lock held. */
  void *(*stage)(void *ctx, void *ram, int layer, int eid);
  void (*unstage)(void *ctx, void *staging);
  /* One part (0 gate, 1 up, 2 down) of a staged expert onto dev: a tensor, or NULL
   * (device full, or a fault). */
  void *(*upload)(void *ctx, int dev, void *staging, int part, int layer, int eid);
  void (*free)(void *ctx, int dev, void *tensor);
  /* A group of n rows on dev, asynchronously: row r computes (gate[r], up[r], down[r])
   * on x + r*hidden. 0 when issued; nonzero: nothing is open on dev. */
  int (*issue)(void *ctx, int dev, int n, void *const *gate, void *const *up, void *const *down,
               const float *x, int hidden);
  /* Waits for dev's open group and writes its n outputs (n*hidden floats) into y; closes
   * the group either way. 0 on success; nonzero: y is untouched. */
  int (*take)(void *ctx, int dev, int n, float *y, int hidden);
  /* A trunk matrix onto dev (index: its number in the trunk table): a tensor, or NULL. */
  void *(*dense_upload)(void *ctx, int dev, int index, const struct tt_trunk_offer *offer);
  /* y = W x on dev from trunk tensor w, with the dense path's own device buffers (never a
   * group's); 0 on success. */
  int (*dense_gemv)(void *ctx, int dev, void *w, const float *x, float *y);
  void (*shutdown)(void *ctx);
  void *(*host_alloc)(void *ctx, int what, size_t bytes);
  void (*host_free)(void *ctx, int what, void *p);
  /* nonzero: the init step `site` (TT_ENV_*) fails as the operating system would */
  int (*env_fault)(void *ctx, int site);
} tt_backend;

#ifdef __cplusplus
}
#endif
#endif
