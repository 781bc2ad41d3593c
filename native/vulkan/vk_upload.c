/*
 * Vulkan backend: tensor upload and free.
 *
 * Role: put one tensor (packed weights + float32 scales) into the fill-once arena.
 * Two ways, chosen once per engine by TIERLAB_VK_UPLOAD:
 *   staged (default): host staging buffer -> vkCmdCopyBuffer -> DEVICE_LOCAL arena.
 *     This is the path for cards without a large host-visible window (no resizable
 *     BAR), where HOST_VISIBLE|DEVICE_LOCAL memory is a ~256 MiB aperture.
 *   mapped: the arena itself is HOST_VISIBLE (and DEVICE_LOCAL when available) and the
 *     CPU writes the bytes in place.
 * Invariants:
 *   - uploads are serialized by up_mx (one staging buffer, one command buffer); the
 *     arena and the queue are touched under mx only, and fences are waited outside it,
 *     so a worker thread uploading never blocks the decode thread's issue for long;
 *   - every arena chunk is filled once with vkCmdFillBuffer before its first use, in
 *     both modes: with staged uploads a freshly created device-local block gave
 *     slightly nondeterministic results until its first device-side touch was a fill
 *     (seen on RADV; the fill value did not matter, the cause is not known);
 *   - uploads record no barrier after their copies: every command buffer that reads
 *     tensors starts with vk_uploads_visible (vk_commands.c), whose first scope holds
 *     every copy submitted before it, so a group sees the bytes of every upload before
 *     it and copies in flight may overlap one another;
 *   - a failed copy leaves its arena slice consumed (fill-once: nothing is reused);
 *   - free releases nothing of the arena; only the tensor's descriptor set goes back to
 *     its pool (the dispatcher never frees a tensor that an open group uses);
 *   - an upload from a RAM copy (staged mode) is recorded on a lane, in a batch, and
 *     left in flight (vk_lanes.c submits and reports it); the lane is submitted before
 *     any later group, so the queue orders the copy before the group, whose reads the
 *     group's opening barrier covers.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/par_copy.h"
#include "vk_internal.h"

int vk_upload_mode_from_env(char *err, size_t cap) {
  const char *v = getenv("TIERLAB_VK_UPLOAD");
  if (!v || !*v || strcmp(v, "staged") == 0) return VK_UPLOAD_STAGED;
  if (strcmp(v, "mapped") == 0) return VK_UPLOAD_MAPPED;
  return -tl_fail(err, cap, TL_E_ARG, "vulkan: TIERLAB_VK_UPLOAD=%s (staged or mapped)", v);
}

int vk_upload_init(tl_backend *b, char *err, size_t cap) {
  int rc = vk_lane_create(b, "upload", &b->up_pool, &b->up_cmd, &b->up_fence, err, cap);
  if (rc != TL_OK) return rc;
  if (b->upload_mode != VK_UPLOAD_STAGED) return TL_OK;
  /* staging lives in host memory: prefer a type that is not device-local, so the
   * small BAR window (if any) stays free */
  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  return vk_buf_create(b, VK_STAGING_BYTES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, hv,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, hv, &b->staging, err, cap);
}

void vk_upload_destroy(tl_backend *b) {
  vk_buf_destroy(b, &b->staging);
  if (b->up_fence) vkDestroyFence(b->dev, b->up_fence, NULL);
  if (b->up_pool) vkDestroyCommandPool(b->dev, b->up_pool, NULL); /* frees up_cmd */
  b->up_fence = VK_NULL_HANDLE;
  b->up_pool = VK_NULL_HANDLE;
  b->up_cmd = VK_NULL_HANDLE;
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = src_access,
                        .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int begin(tl_backend *b, char *err, size_t cap) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(b->up_cmd, &bi); /* resets it (pool flag) */
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: upload begin: %s", vk_result_str(r));
  return TL_OK;
}

/* Ends, submits and waits for the upload command buffer (up_mx held). */
static int submit_wait(tl_backend *b, char *err, size_t cap) {
  int rc = vk_submit(b, b->up_cmd, b->up_fence, VK_NULL_HANDLE, "upload", err, cap);
  if (rc != TL_OK) return rc;
  VkResult r = vkWaitForFences(b->dev, 1, &b->up_fence, VK_TRUE, UINT64_MAX);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: upload wait: %s", vk_result_str(r));
  return TL_OK;
}

static void record_fill(vk_chunk *c, VkCommandBuffer cmd, VkPipelineStageFlags next_stage,
                        VkAccessFlags next_access) {
  vkCmdFillBuffer(cmd, c->buf, 0, VK_WHOLE_SIZE, 0);
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, next_stage,
          next_access);
}

static int upload_staged(tl_backend *b, vk_chunk *c, const vk_tensor *vt, const void *data,
                         size_t data_bytes, const float *scales, size_t s_bytes, char *err,
                         size_t cap) {
  struct {
    const uint8_t *src;
    VkDeviceSize len, dst;
  } seg[2] = {{data, data_bytes, vt->w_off}, {(const uint8_t *)scales, s_bytes, vt->s_off}};
  int s = 0;
  VkDeviceSize done = 0;
  while (s < 2) {
    int rc = begin(b, err, cap);
    if (rc) return rc;
    if (!c->filled)
      record_fill(c, b->up_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy reg[2];
    uint32_t n = 0;
    VkDeviceSize used = 0;
    while (s < 2 && used < VK_STAGING_BYTES) {
      VkDeviceSize take = seg[s].len - done;
      if (take > VK_STAGING_BYTES - used) take = VK_STAGING_BYTES - used;
      memcpy((uint8_t *)b->staging.map + used, seg[s].src + done, take);
      reg[n++] = (VkBufferCopy){.srcOffset = used, .dstOffset = seg[s].dst + done, .size = take};
      used += take;
      done += take;
      if (done == seg[s].len) {
        s++;
        done = 0;
        used = vk_align(used, 16);
      }
    }
    vkCmdCopyBuffer(b->up_cmd, b->staging.buf, c->buf, n, reg);
    if ((rc = submit_wait(b, err, cap))) return rc;
    c->filled = 1;
  }
  return TL_OK;
}

static int upload_mapped(tl_backend *b, vk_chunk *c, const vk_tensor *vt, const void *data,
                         size_t data_bytes, const float *scales, size_t s_bytes, char *err,
                         size_t cap) {
  if (!c->filled) {
    int rc = begin(b, err, cap);
    if (rc) return rc;
    /* the host writes next: make the fill available to host accesses first */
    record_fill(c, b->up_cmd, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
    if ((rc = submit_wait(b, err, cap))) return rc;
    c->filled = 1;
  }
  /* coherent memory: the next vkQueueSubmit makes these writes visible to the device;
   * several threads, since one core's writes over the bus are the bottleneck */
  par_copy((uint8_t *)c->map + vt->w_off, data, data_bytes, b->copy_threads);
  par_copy((uint8_t *)c->map + vt->s_off, scales, s_bytes, b->copy_threads);
  return TL_OK;
}

/* What this backend can hold: sizes in the arena, or TL_E_UNSUPPORTED. */
static int check_tensor(tl_backend *b, const tl_tensor *t, size_t data_bytes, size_t nscales,
                        VkDeviceSize *w_size, VkDeviceSize *s_size, char *err, size_t cap) {
  *w_size = vk_align(data_bytes, 4); /* the shaders load 32-bit words */
  *s_size = (VkDeviceSize)nscales * sizeof(float);
  /* the shaders index elements (row * cols + j) in int32 */
  if ((uint64_t)t->rows * (uint64_t)t->cols >= (1ull << 31)) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: tensor of %d x %d elements (at most 2^31 - 1 on this backend)", t->rows,
                   t->cols);
  }
  VkDeviceSize range = b->props.limits.maxStorageBufferRange;
  if (*w_size > range || *s_size > range) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: tensor of %llu bytes exceeds maxStorageBufferRange %llu",
                   (unsigned long long)*w_size, (unsigned long long)range);
  }
  return TL_OK;
}

/* up_mx held: a slice of the arena and the tensor's descriptor set. */
static int reserve(tl_backend *b, VkDeviceSize w_size, VkDeviceSize s_size, vk_tensor *vt,
                   vk_chunk **c, char *err, size_t cap) {
  pthread_mutex_lock(&b->mx);
  int rc = vk_arena_reserve(b, w_size, s_size, vt, err, cap);
  /* chunks are only ever added under up_mx, which we hold: the pointer stays valid */
  *c = rc ? NULL : &b->arena.chunks[vt->chunk];
  if (!rc) rc = vk_tensor_set_alloc(b, vt, (*c)->buf, err, cap);
  pthread_mutex_unlock(&b->mx);
  return rc;
}

int vk_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                     const float *scales, size_t nscales, char *err, size_t cap) {
  VkDeviceSize w_size, s_size;
  int rc = check_tensor(b, t, data_bytes, nscales, &w_size, &s_size, err, cap);
  if (rc) return rc;
  vk_tensor *vt = calloc(1, sizeof *vt);
  if (!vt) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");

  pthread_mutex_lock(&b->up_mx);
  vk_chunk *c = NULL;
  rc = vk_lane_flush(b, NULL, err, cap); /* a batch's chunk fill goes first */
  if (!rc) rc = reserve(b, w_size, s_size, vt, &c, err, cap);
  if (!rc)
    rc = b->upload_mode == VK_UPLOAD_MAPPED
        ? upload_mapped(b, c, vt, data, data_bytes, scales, (size_t)s_size, err, cap)
        : upload_staged(b, c, vt, data, data_bytes, scales, (size_t)s_size, err, cap);
  pthread_mutex_unlock(&b->up_mx);

  if (rc) {
    if (vt->set) {
      pthread_mutex_lock(&b->mx);
      vk_tensor_set_release(b, vt);
      pthread_mutex_unlock(&b->mx);
    }
    free(vt);
    return rc;
  }
  t->impl = vt;
  return TL_OK;
}

/* up_mx held: records the copy of one RAM span into vt on the open lane (vk_lanes.c).
 * From an imported chunk straight (vk_import.c); else through the lane's staging
 * slice, in one memcpy (weights and scales are one span, backend.h). */
static int record_lane(tl_backend *b, vk_chunk *c, const vk_tensor *vt, const tl_host_src *src,
                       tl_tensor *t, char *err, size_t cap) {
  vk_lane *lane = NULL;
  int rc = vk_lane_open(b, src->pin != NULL ? 0 : vk_align(src->span_bytes, 16), &lane, err, cap);
  if (rc != TL_OK) return rc;
  if (!c->filled) {
    vk_lane_copies_out(lane); /* recorded in the order they were asked for */
    record_fill(c, lane->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    c->filled = 1; /* the fill goes first in submission order: every later copy follows it */
  }
  const VkDeviceSize scales_in_span = tl_span_scales_at(src->data_bytes);
  VkDeviceSize from_at = lane->staged;
  VkBuffer from = lane->staging.buf;
  if (src->pin != NULL) {
    from = ((const vk_import *)src->pin)->buf;
    from_at = src->data_at;
  } else {
    memcpy((uint8_t *)lane->staging.map + lane->staged, src->data, src->span_bytes);
    lane->staged += vk_align(src->span_bytes, 16);
  }
  vk_lane_copy(
      lane, from, c->buf,
      (VkBufferCopy){.srcOffset = from_at, .dstOffset = vt->w_off, .size = src->data_bytes});
  /* where the arena put the scales as the span has them, this joins the weights' copy */
  vk_lane_copy(lane, from, c->buf,
               (VkBufferCopy){.srcOffset = from_at + scales_in_span,
                              .dstOffset = vt->s_off,
                              .size = (VkDeviceSize)src->nscales * sizeof(float)});
  lane->t[lane->recorded++] = t;
  return TL_OK;
}

int vk_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                           size_t cap) {
  /* mapped uploads are host writes, done when written; a pageable span too big for a
   * lane goes through the synchronous staging path: either way, landed on return */
  if (b->upload_mode == VK_UPLOAD_MAPPED ||
      (src->pin == NULL && src->span_bytes > VK_LANE_STAGING_BYTES)) {
    int rc =
        vk_tensor_upload(b, t, src->data, src->data_bytes, src->scales, src->nscales, err, cap);
    if (rc == TL_OK) tl_upload_done(t, TL_OK, NULL);
    return rc;
  }
  VkDeviceSize w_size, s_size;
  int rc = check_tensor(b, t, src->data_bytes, src->nscales, &w_size, &s_size, err, cap);
  if (rc) return rc;
  vk_tensor *vt = calloc(1, sizeof *vt);
  if (!vt) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
  pthread_mutex_lock(&b->up_mx);
  vk_chunk *c = NULL;
  rc = reserve(b, w_size, s_size, vt, &c, err, cap);
  if (!rc) {
    t->impl = vt; /* before the reaper can report it */
    rc = record_lane(b, c, vt, src, t, err, cap);
  }
  if (!rc) rc = vk_lane_flush_when_due(b, t, err, cap);
  pthread_mutex_unlock(&b->up_mx);
  if (rc) {
    t->impl = NULL;
    if (vt->set) {
      pthread_mutex_lock(&b->mx);
      vk_tensor_set_release(b, vt);
      pthread_mutex_unlock(&b->mx);
    }
    free(vt);
  }
  return rc;
}

/* Arena chunks for the uploads to come, made and filled now (the fill-once rule). */
int vk_tensor_reserve(tl_backend *b, int dev, uint64_t bytes, char *err, size_t cap) {
  (void)dev;
  pthread_mutex_lock(&b->up_mx);
  pthread_mutex_lock(&b->mx);
  int rc = vk_arena_grow(b, bytes, err, cap);
  pthread_mutex_unlock(&b->mx);
  const int mapped = b->upload_mode == VK_UPLOAD_MAPPED;
  for (int i = 0; rc == TL_OK && i < b->arena.nchunks; i++) {
    vk_chunk *c = &b->arena.chunks[i]; /* chunks are only added under up_mx: stable */
    if (c->filled) continue;
    rc = begin(b, err, cap);
    if (rc == TL_OK) {
      const VkPipelineStageFlags next =
          mapped ? VK_PIPELINE_STAGE_HOST_BIT : VK_PIPELINE_STAGE_TRANSFER_BIT;
      record_fill(c, b->up_cmd, next,
                  mapped ? VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_HOST_READ_BIT
                         : VK_ACCESS_TRANSFER_WRITE_BIT);
      rc = submit_wait(b, err, cap);
    }
    if (rc == TL_OK) c->filled = 1;
  }
  pthread_mutex_unlock(&b->up_mx);
  return rc;
}

void vk_tensor_free(tl_backend *b, tl_tensor *t) {
  vk_tensor *vt = t->impl;
  t->impl = NULL;
  if (!vt) return;
  pthread_mutex_lock(&b->mx);
  vk_tensor_set_release(b, vt);
  pthread_mutex_unlock(&b->mx);
  free(vt);
}
