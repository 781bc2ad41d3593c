/*
 * Vulkan backend: the vtable the dispatcher links to, init, shutdown, memory info,
 * ledger and the SiLU table.
 *
 * Role: one engine = one VkDevice (the engine's device list has exactly one id; see
 * vk_device.c for the numbering). Init either succeeds completely or releases all it
 * made; shutdown destroys every Vulkan object it created, children before parents,
 * so the validation layer reports no leaked object (all but the VkInstance, which one
 * process shares across its engines: vk_device.c says why).
 * Invariants:
 *   - reclaims = 0: the weight arena is fill-once (vk_arena.c);
 *   - the ledger reports the internal buffers only (staging and the lanes' staging when
 *     staged, group io and scratch), all made at init: fixed until shutdown. Arena
 *     chunks hold tensors, which the dispatcher counts itself; imported RAM chunks are
 *     host memory;
 *   - mem_info: total = the arena limit (min of the capacity cap and the memory budget),
 *     free = what the arena can still hand out; a freed tensor gives nothing back.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/par_copy.h"
#include "vk_internal.h"

static void vk_shutdown(tl_backend *b) {
  if (!b) return;
  vk_lanes_stop(b); /* reports a group still in flight; no upload is (the dispatcher) */
  if (b->dev) {
    vk_group_destroy(b); /* waits for a group still in flight */
    vk_dense_destroy(b);
    vkDeviceWaitIdle(b->dev);
    vk_lanes_destroy(b);
    vk_upload_destroy(b);
    vk_pipeline_destroy(b);
    vk_arena_destroy(b);
    vk_delay_stop(b); /* after every wait: held work needs its events set */
    vkDestroyDevice(b->dev, NULL);
  }
  /* b->inst is the process's shared instance (vk_device.c): it stays */
  if (b->up_mx_ok) pthread_mutex_destroy(&b->up_mx);
  if (b->mx_ok) pthread_mutex_destroy(&b->mx);
  free(b);
}

static int vk_init(tl_backend **out, tl_engine *owner, const int *devices, int ndevices,
                   uint64_t capacity_bytes, char *err, size_t cap) {
  if (ndevices != 1)
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: one device per engine (got %d); the tier is single-device here",
                   ndevices);
  int mode = vk_upload_mode_from_env(err, cap);
  if (mode < 0) return -mode;
  int lanes = vk_lanes_from_env(err, cap);
  if (lanes < 0) return -lanes;
  tl_backend *b = calloc(1, sizeof *b);
  if (!b) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
  b->owner = owner;
  b->upload_mode = mode;
  b->nlanes = lanes;
  b->copy_threads = par_copy_threads_from_env();
  b->copy_delay_us = vk_delay_from_env("TIERLAB_VK_COPY_DELAY_US");
  b->group_delay_us = vk_delay_from_env("TIERLAB_VK_GROUP_DELAY_US");
  if (pthread_mutex_init(&b->mx, NULL) == 0) b->mx_ok = 1;
  if (pthread_mutex_init(&b->up_mx, NULL) == 0) b->up_mx_ok = 1;
  int rc = b->mx_ok && b->up_mx_ok ? TL_OK : tl_fail(err, cap, TL_E_INTERNAL, "vulkan: mutex init");
  if (!rc) rc = vk_device_open(b, devices[0], err, cap);
  if (!rc) rc = vk_delay_start(b, err, cap);
  if (!rc) rc = vk_arena_init(b, capacity_bytes, err, cap);
  if (!rc) rc = vk_upload_init(b, err, cap);
  if (!rc) rc = vk_pipeline_create(b, err, cap);
  if (!rc) rc = vk_group_init(b, err, cap);
  if (!rc) rc = vk_dense_init(b, err, cap);
  if (!rc) rc = vk_lanes_init(b, err, cap);
  if (rc) {
    vk_shutdown(b);
    return rc;
  }
  *out = b;
  return TL_OK;
}

static int vk_mem_info(tl_backend *b, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                       char *err, size_t cap) {
  (void)dev;
  (void)err;
  (void)cap;
  pthread_mutex_lock(&b->mx);
  *total_bytes = b->arena.limit;
  *free_bytes = vk_arena_free_bytes(&b->arena);
  pthread_mutex_unlock(&b->mx);
  return TL_OK;
}

static void vk_ledger(tl_backend *b, uint64_t *count, uint64_t *bytes) {
  pthread_mutex_lock(&b->mx);
  *count = b->int_count;
  *bytes = b->int_bytes;
  pthread_mutex_unlock(&b->mx);
}

/* The table is copied into the group's io buffer at the next issue (the dispatcher
 * calls this only while no group is open). */
static int vk_set_lut(tl_backend *b, const float *lut, char *err, size_t cap) {
  (void)err;
  (void)cap;
  pthread_mutex_lock(&b->mx);
  memcpy(b->lut, lut, sizeof b->lut);
  b->lut_gen++;
  if (b->lut_gen == 0) b->lut_gen = 1; /* 0 means "no table" */
  pthread_mutex_unlock(&b->mx);
  return TL_OK;
}

const tl_backend_ops tl_backend_impl = {
    .name = "vulkan",
    .reclaims = 0,
    .init = vk_init,
    .shutdown = vk_shutdown,
    .mem_info = vk_mem_info,
    .tensor_upload = vk_tensor_upload,
    .tensor_free = vk_tensor_free,
    .group_issue = vk_group_issue,
    .group_take = vk_group_take,
    .ledger = vk_ledger,
    .set_lut = vk_set_lut,
    .tensor_upload_async = vk_tensor_upload_async,
    .host_register = vk_host_register,
    .host_unregister = vk_host_unregister,
    .tensor_reserve = vk_tensor_reserve,
    .copy_bandwidth = vk_copy_bandwidth,
    .dense_matvec = vk_dense_matvec,
    .device_bytes = vk_device_bytes,
};
