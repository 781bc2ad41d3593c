/*
 * The dispatcher, part 1: engine lifecycle and queries (create, destroy, device count,
 * memory info, reclaims, ledger, the SiLU table). Tensors are in dispatch_tensor.c,
 * uploads from RAM copies in dispatch_async.c, groups in dispatch_group.c, RAM copies
 * in ram.c, completions in completions.c, fault arming in fault.c.
 *
 * Invariants: every argument is checked before the backend sees it; every entry point
 * validates the engine handle through the registry (registry.c) and never dereferences
 * a stale one; nothing aborts: failures are a status code plus a message in err.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "shape.h"

#define TL_DISCARD_FLOATS ((size_t)TL_MAX_GROUP_ROWS * (size_t)TL_MAX_HIDDEN)

int tl_check_dev(tl_engine *eng, const char *fn, int dev, char *err, size_t cap) {
  if (dev < 0 || dev >= eng->ndev) {
    return tl_fail(err, cap, TL_E_ARG, "%s: dev must be in 0..%d (got %d)", fn, eng->ndev - 1, dev);
  }
  return TL_OK;
}

void tl_group_close(tl_group_state *g) {
  for (int i = 0; i < g->nused; i++) g->used[i]->group_uses--;
  g->nused = 0;
  g->n = g->hidden = 0;
  g->phase = TL_GROUP_CLOSED;
}

TL_API uint32_t tl_abi_version(void) { return TL_ABI_VERSION; }

TL_API const char *tl_backend_name(void) { return tl_backend_impl.name; }

static void engine_free(tl_engine *eng) {
  tl_ptrset_clear(&eng->tensors);
  tl_ptrset_clear(&eng->rams);
  tl_ptrset_clear(&eng->stagings);
  tl_cq_destroy(&eng->cq);
  pthread_cond_destroy(&eng->up_cv);
  pthread_mutex_destroy(&eng->mu);
  pthread_mutex_destroy(&eng->discard_mu);
  free(eng->discard);
  free(eng);
}

static int check_device_list(const int *devices, int ndevices, char *err, size_t cap) {
  static const char *const FN = "tl_engine_create";
  if (devices == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: devices is NULL", FN);
  if (ndevices < 1 || ndevices > TL_MAX_DEVICES) {
    return tl_fail(err, cap, TL_E_ARG, "%s: ndevices must be in 1..%d (got %d)", FN, TL_MAX_DEVICES,
                   ndevices);
  }
  for (int i = 0; i < ndevices; i++) {
    if (devices[i] < 0) {
      return tl_fail(err, cap, TL_E_ARG, "%s: devices[%d] is negative (%d)", FN, i, devices[i]);
    }
    for (int j = 0; j < i; j++) {
      if (devices[j] == devices[i]) {
        return tl_fail(err, cap, TL_E_ARG,
                       "%s: device id %d appears twice (devices[%d] and devices[%d])", FN,
                       devices[i], j, i);
      }
    }
  }
  return TL_OK;
}

TL_API int tl_engine_create(const int *devices, int ndevices, uint64_t capacity_bytes,
                            tl_engine **out, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_engine_create: out is NULL");
  *out = NULL;
  int rc = check_device_list(devices, ndevices, err, err_cap);
  if (rc != TL_OK) return rc;
  tl_engine *eng = calloc(1, sizeof *eng);
  if (eng == NULL) {
    return tl_fail(err, err_cap, TL_E_OOM, "tl_engine_create: host out of memory");
  }
  pthread_mutex_init(&eng->mu, NULL);
  pthread_mutex_init(&eng->discard_mu, NULL);
  pthread_cond_init(&eng->up_cv, NULL);
  eng->discard = malloc(TL_DISCARD_FLOATS * sizeof(float));
  if (eng->discard == NULL || tl_cq_init(&eng->cq) != 0) {
    engine_free(eng);
    return tl_fail(err, err_cap, TL_E_OOM, "tl_engine_create: host out of memory");
  }
  eng->ops = &tl_backend_impl;
  eng->ndev = ndevices;
  memcpy(eng->devices, devices, (size_t)ndevices * sizeof(int));
  eng->capacity_bytes = capacity_bytes;
  rc = eng->ops->init(&eng->be, eng, devices, ndevices, capacity_bytes, err, err_cap);
  if (rc != TL_OK) {
    engine_free(eng);
    return rc;
  }
  tl_ram_pool_init(&eng->pool, eng->ops, eng->be);
  if (tl_registry_add(eng) != 0) {
    tl_ram_pool_destroy(&eng->pool);
    eng->ops->shutdown(eng->be);
    engine_free(eng);
    return tl_fail(err, err_cap, TL_E_OOM, "tl_engine_create: host out of memory");
  }
  *out = eng;
  return TL_OK;
}

TL_API int tl_engine_destroy(tl_engine *eng, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (eng == NULL) return TL_OK;
  if (tl_registry_remove(eng) != 0) {
    return tl_fail(err, err_cap, TL_E_STATE,
                   "tl_engine_destroy: eng is not a live engine (already destroyed?)");
  }
  tl_cq_close(&eng->cq); /* a completion wait in progress returns now */
  tl_registry_wait_idle(eng);
  /* No other call can reach eng any more: let uploads in flight land (they hold RAM
   * copies and tensors), close open groups (a backend must not free a tensor a group
   * still reads), release leftover tensors, RAM copies, then the backend. */
  pthread_mutex_lock(&eng->mu);
  while (eng->uploads_in_flight > 0) pthread_cond_wait(&eng->up_cv, &eng->mu);
  pthread_mutex_unlock(&eng->mu);
  for (int d = 0; d < eng->ndev; d++) {
    tl_group_state *g = &eng->group[d];
    if (g->phase == TL_GROUP_OPEN) {
      (void)eng->ops->group_take(eng->be, d, eng->discard, g->n, g->hidden, NULL, 0);
    }
    if (g->phase != TL_GROUP_CLOSED) tl_group_close(g);
  }
  for (size_t i = 0; i < eng->tensors.cap; i++) {
    tl_tensor *t = eng->tensors.slots[i];
    if (t == NULL || t == TL_PTRSET_TOMB) continue;
    eng->ops->tensor_free(eng->be, t);
    t->magic = 0;
    free(t);
  }
  tl_ram_release_all(eng);
  eng->ops->shutdown(eng->be);
  engine_free(eng);
  return TL_OK;
}

TL_API int tl_device_count(tl_engine *eng, int *out, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, "tl_device_count", err, err_cap);
  if (rc != TL_OK) return rc;
  if (out == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "tl_device_count: out is NULL");
  } else {
    *out = eng->ndev;
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_mem_info(tl_engine *eng, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                       char *err, size_t err_cap) {
  static const char *const FN = "tl_mem_info";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if ((rc = tl_check_dev(eng, FN, dev, err, err_cap)) != TL_OK) {
    /* message written */
  } else if (free_bytes == NULL || total_bytes == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: %s is NULL", FN,
                 free_bytes == NULL ? "free_bytes" : "total_bytes");
  } else if (eng->capacity_bytes > 0) {
    /* the cap is the device: what the dispatcher charged is what is used */
    pthread_mutex_lock(&eng->mu);
    *total_bytes = eng->capacity_bytes;
    *free_bytes = eng->capacity_bytes - eng->charged_bytes[dev];
    pthread_mutex_unlock(&eng->mu);
  } else {
    rc = eng->ops->mem_info(eng->be, dev, free_bytes, total_bytes, err, err_cap);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_reclaims(tl_engine *eng) {
  if (tl_engine_enter(eng, "tl_reclaims", NULL, 0) != TL_OK) return -1;
  int r = eng->ops->reclaims;
  tl_engine_leave(eng);
  return r;
}

TL_API int tl_ledger(tl_engine *eng, uint64_t *count, uint64_t *bytes, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, "tl_ledger", err, err_cap);
  if (rc != TL_OK) return rc;
  if (count == NULL || bytes == NULL) {
    rc =
        tl_fail(err, err_cap, TL_E_ARG, "tl_ledger: %s is NULL", count == NULL ? "count" : "bytes");
  } else {
    uint64_t c = 0, b = 0;
    pthread_mutex_lock(&eng->mu);
    eng->ops->ledger(eng->be, &c, &b);
    *count = c + eng->tensors.count;
    *bytes = b + eng->tensor_bytes;
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_engine_set_lut(tl_engine *eng, const float *lut, char *err, size_t err_cap) {
  static const char *const FN = "tl_engine_set_lut";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  long bad = lut == NULL ? -1 : tl_first_nonfinite(lut, TL_SILU_LUT_SIZE);
  if (lut == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: lut is NULL", FN);
  } else if (bad >= 0) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: lut[%ld] is not finite", FN, bad);
  } else {
    /* held across the backend call: no group may open while the table changes */
    pthread_mutex_lock(&eng->mu);
    for (int d = 0; d < eng->ndev && rc == TL_OK; d++) {
      if (eng->group[d].phase != TL_GROUP_CLOSED) {
        rc = tl_fail(err, err_cap, TL_E_STATE,
                     "%s: device %d has an open group; take it before changing the table", FN, d);
      }
    }
    if (rc == TL_OK) rc = eng->ops->set_lut(eng->be, lut, err, err_cap);
    if (rc == TL_OK) {
      memcpy(eng->lut, lut, sizeof eng->lut);
      eng->lut_set = 1;
    }
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}
