/*
 * The dispatcher's engine object and its internal helpers.
 *
 * Role: what dispatch*.c share. An engine wraps one backend instance and owns:
 *   - the registry of its live tensors (validated by membership before any dereference);
 *   - per-device capacity charge, group state and fault arms.
 *   - the RAM copies and staging references of the engine (ram.h) and its RAM pool;
 *   - the completion queue (completions.h) and the count of uploads in flight.
 * Locking: `mu` guards every field below it. Backend calls that may block (upload,
 * take) run without `mu`; the group phase (ISSUING, TAKING) marks the device busy
 * meanwhile. The registry of live engines (registry.c) has its own global lock and
 * counts calls in progress, so destroy waits for them and a stale handle is refused.
 * Lock order: mu, then the pool's and the completion queue's own locks.
 */
#ifndef TIERLAB_ENGINE_H
#define TIERLAB_ENGINE_H

#include <pthread.h>

#include "backend.h"
#include "completions.h"
#include "ptrset.h"
#include "ram.h"

typedef enum tl_group_phase {
  TL_GROUP_CLOSED = 0,
  TL_GROUP_ISSUING, /* backend issue in progress */
  TL_GROUP_OPEN, /* issued, waiting for take */
  TL_GROUP_TAKING /* backend take in progress */
} tl_group_phase;

typedef struct tl_group_state {
  tl_group_phase phase;
  int n, hidden;
  tl_tensor *used[3 * TL_MAX_GROUP_ROWS]; /* each holds one group_uses count */
  int nused;
  int met_uploads; /* a tensor it reads was still uploading when it opened */
} tl_group_state;

enum { TL_OP_UPLOAD = 0, TL_OP_ISSUE, TL_OP_TAKE, TL_OP_COUNT };

typedef struct tl_fault_slot {
  int armed;
  int remaining; /* calls to let through before the one that fails */
} tl_fault_slot;

struct tl_engine {
  const tl_backend_ops *ops;
  tl_backend *be;
  int ndev;
  int devices[TL_MAX_DEVICES];
  uint64_t capacity_bytes; /* 0: the backend's own limit */
  int calls; /* calls in progress; guarded by the registry lock */

  pthread_mutex_t mu;
  tl_ptrset tensors; /* live tl_tensor* of this engine */
  uint64_t tensor_bytes; /* sum of their footprints */
  uint64_t charged_bytes[TL_MAX_DEVICES]; /* footprints charged (reserved) per device */
  tl_group_state group[TL_MAX_DEVICES];
  /* groups issued, and of them those that read a tensor still uploading (tl_group_stats) */
  uint64_t groups_issued, groups_met_uploads;
  tl_fault_slot fault[TL_OP_COUNT][TL_MAX_DEVICES];
  int lut_set;
  float lut[TL_SILU_LUT_SIZE]; /* the engine's copy, for tl_expert_cpu_ram */
  tl_ptrset rams; /* live tl_ram handles */
  tl_ptrset stagings; /* live tl_staging references */
  int uploads_in_flight; /* tensor_upload_async started, tl_upload_done not yet called */
  pthread_cond_t up_cv; /* with mu: an upload in flight was reported done */

  /* the dense GEMV (dense.c): one at a time per device, its quantized input here */
  int dense_busy[TL_MAX_DEVICES];
  int8_t dense_q[TL_MAX_DEVICES][TL_MAX_HIDDEN];

  tl_ram_pool pool; /* its own lock */
  tl_cq cq; /* its own lock */

  /* A faulted take, or destroy with a group still open, waits for the group and
   * throws its output away here: allocated at creation so those paths cannot fail. */
  pthread_mutex_t discard_mu;
  float *discard; /* TL_MAX_GROUP_ROWS * TL_MAX_HIDDEN floats */
};

/* registry.c: the global registry of live engines. */
int tl_registry_add(tl_engine *eng);
/* Validates the handle and counts a call in progress; pair with tl_engine_leave. */
int tl_engine_enter(tl_engine *eng, const char *fn, char *err, size_t cap);
void tl_engine_leave(tl_engine *eng);
/* Removes the engine: new calls are refused. Returns 0, or -1 when eng was not live. */
int tl_registry_remove(tl_engine *eng);
/* After tl_registry_remove: waits until no call is in progress. */
void tl_registry_wait_idle(tl_engine *eng);

/* fault.c: with eng->mu held, counts one call of op on dev; 1 when it must fail. */
int tl_fault_fires(tl_engine *eng, int op, int dev);

/* dispatch_tensor.c, with eng->mu held: the upload fault check, then the capacity
 * reservation of fp bytes on dev (fn names the caller in messages). */
int tl_upload_reserve(tl_engine *eng, const char *fn, int dev, uint64_t fp, char *err, size_t cap);

/* dispatch.c */
int tl_check_dev(tl_engine *eng, const char *fn, int dev, char *err, size_t cap);
/* With eng->mu held: drops the group's tensor uses and closes it. */
void tl_group_close(tl_group_state *g);

#endif
