/*
 * Vulkan backend: tl_copy_bandwidth, the raw host-to-device copy of this library.
 *
 * pinned 1: vkCmdCopyBuffer from a host-visible buffer (the driver's own page-locked
 * memory) into a device-local one; pinned 0: the same after a memcpy from ordinary
 * malloc'd memory into the host-visible buffer, timed together (what a staged upload
 * from pageable memory costs). One warm-up, then reps copies, each submitted and
 * waited for. Scratch buffers leave the ledger (it stays fixed after init) and are
 * destroyed before the call returns.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk_internal.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct scratch {
  vk_buf src, dst;
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  unsigned char *pageable;
} scratch;

static int make(tl_backend *b, uint64_t bytes, int pinned, scratch *s, char *err, size_t cap) {
  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int rc = vk_buf_create(b, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, hv,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, hv, &s->src, err, cap);
  vk_buf_uncount(b, &s->src);
  if (rc == TL_OK) {
    rc = vk_buf_create(b, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0,
                       &s->dst, err, cap);
    vk_buf_uncount(b, &s->dst);
  }
  if (rc == TL_OK) rc = vk_lane_create(b, "bandwidth", &s->pool, &s->cmd, &s->fence, err, cap);
  if (rc == TL_OK && !pinned) {
    s->pageable = malloc((size_t)bytes);
    if (s->pageable == NULL) return tl_fail(err, cap, TL_E_OOM, "vulkan: host out of memory");
    memset(s->pageable, 1, (size_t)bytes);
  }
  if (rc == TL_OK) memset(s->src.map, 1, (size_t)bytes);
  return rc;
}

static void release(tl_backend *b, scratch *s) {
  vk_buf_destroy(b, &s->src);
  vk_buf_destroy(b, &s->dst);
  if (s->fence) vkDestroyFence(b->dev, s->fence, NULL);
  if (s->pool) vkDestroyCommandPool(b->dev, s->pool, NULL);
  free(s->pageable);
}

/* One copy (after the memcpy from pageable memory when there is some), waited for. */
static int copy_once(tl_backend *b, scratch *s, uint64_t bytes, char *err, size_t cap) {
  if (s->pageable != NULL) memcpy(s->src.map, s->pageable, (size_t)bytes);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(s->cmd, &bi);
  if (r == VK_SUCCESS) {
    VkBufferCopy reg = {.srcOffset = 0, .dstOffset = 0, .size = bytes};
    vkCmdCopyBuffer(s->cmd, s->src.buf, s->dst.buf, 1, &reg);
    r = vkEndCommandBuffer(s->cmd);
  }
  if (r == VK_SUCCESS) r = vkResetFences(b->dev, 1, &s->fence);
  if (r == VK_SUCCESS) {
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &s->cmd};
    pthread_mutex_lock(&b->mx);
    r = vkQueueSubmit(b->queue, 1, &si, s->fence);
    pthread_mutex_unlock(&b->mx);
  }
  if (r == VK_SUCCESS) r = vkWaitForFences(b->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
  if (r != VK_SUCCESS) {
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: bandwidth copy: %s", vk_result_str(r));
  }
  return TL_OK;
}

int vk_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                      char *err, size_t cap) {
  (void)dev; /* one device per engine */
  scratch s;
  memset(&s, 0, sizeof s);
  int rc = make(b, bytes, pinned, &s, err, cap);
  if (rc == TL_OK) rc = copy_once(b, &s, bytes, err, cap); /* warm-up */
  double t0 = now_s();
  for (int i = 0; i < reps && rc == TL_OK; i++) rc = copy_once(b, &s, bytes, err, cap);
  double dt = now_s() - t0;
  if (rc == TL_OK) *gbps = (double)bytes * reps / (dt > 0 ? dt : 1e-9) / 1e9;
  release(b, &s);
  return rc;
}
