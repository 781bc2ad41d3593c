/*
 * Vulkan backend: the dense GEMV (tierlab.h tl_dense_matvec) and the tensor bytes held.
 *
 * Why its own buffers: the GEMV runs while the expert group may be in flight on the
 * queue. Sharing the group's input and output ranges (the seeds' b86e55e) would write
 * the group's y with the GEMV's result and race the group's reads of its input. The
 * dense path has its own host-visible io buffer (input codes as int32, outputs) and its
 * own set-0 descriptor set over it, its own command buffer and fence; the tensor is
 * bound as set 1 like an expert's.
 * Invariants: the dispatcher runs one GEMV at a time and keeps its tensor alive, so the
 * io buffer and command buffer have one user; the queue is used under mx only; the
 * fence is waited outside mx; y is read only after the fence (the command buffer ends
 * with a compute -> host barrier).
 */
#include <string.h>

#include "vk_internal.h"

static void bind(VkDescriptorBufferInfo *info, VkBuffer buf, VkDeviceSize off, VkDeviceSize range) {
  *info = (VkDescriptorBufferInfo){.buffer = buf, .offset = off, .range = range};
}

int vk_dense_init(tl_backend *b, char *err, size_t cap) {
  vk_dense *d = &b->dense;
  int rc = vk_lane_create(b, "dense", &d->cmd_pool, &d->cmd, &d->fence, err, cap);
  if (rc != TL_OK) return rc;
  const VkDeviceSize in_bytes = vk_align((VkDeviceSize)TL_MAX_HIDDEN * 4, b->arena.align);
  const VkDeviceSize out_bytes = (VkDeviceSize)TL_MAX_DENSE_ROWS * sizeof(float);
  d->off_y = in_bytes;
  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  rc = vk_buf_create(b, in_bytes + out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                     hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0, hv, &d->io, err, cap);
  if (rc != TL_OK) return rc;
  /* every binding of the set-0 layout is written; the dense shader reads 1 and writes 6 */
  VkDescriptorBufferInfo info[8];
  VkWriteDescriptorSet w[8];
  for (uint32_t k = 0; k < 8; k++) {
    if (k == 6) {
      bind(&info[k], d->io.buf, d->off_y, out_bytes);
    } else {
      bind(&info[k], d->io.buf, 0, in_bytes);
    }
    w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = d->set,
                                  .dstBinding = k,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &info[k]};
  }
  vkUpdateDescriptorSets(b->dev, 8, w, 0, NULL);
  return TL_OK;
}

static void record(tl_backend *b, const tl_tensor *w, int e) {
  vk_dense *d = &b->dense;
  const vk_tensor *vt = w->impl;
  VkDescriptorSet sets[2] = {d->set, vt->set};
  vk_push p;
  memset(&p, 0, sizeof p);
  vk_uploads_visible(d->cmd);
  p.fmt_a = w->fmt;
  p.rows_a = w->rows;
  p.cols_a = w->cols;
  p.group_a = w->cols;
  p.n = e;
  vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->dense_pipe);
  vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->layout, 0, 2, sets, 0, NULL);
  vkCmdPushConstants(d->cmd, b->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
  vkCmdDispatch(d->cmd, ((uint32_t)w->rows + VK_WG - 1) / VK_WG, 1, 1);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                       1, &mb, 0, NULL, 0, NULL);
}

int vk_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                    char *err, size_t cap) {
  (void)dev; /* one device */
  vk_dense *d = &b->dense;
  int rc = vk_lanes_submit_open(b, err, cap); /* uploads called before go first */
  if (rc != TL_OK) return rc;
  int32_t *in = d->io.map;
  for (int j = 0; j < w->cols; j++) in[j] = qx[j]; /* the shaders read int8 codes as int */
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(d->cmd, &bi);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense begin: %s", vk_result_str(r));
  record(b, w, e);
  if ((r = vkEndCommandBuffer(d->cmd)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense end: %s", vk_result_str(r));
  if ((r = vkResetFences(b->dev, 1, &d->fence)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense fence reset: %s", vk_result_str(r));
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &d->cmd};
  pthread_mutex_lock(&b->mx);
  r = vkQueueSubmit(b->queue, 1, &si, d->fence);
  pthread_mutex_unlock(&b->mx);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense submit: %s", vk_result_str(r));
  if ((r = vkWaitForFences(b->dev, 1, &d->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense wait: %s", vk_result_str(r));
  memcpy(y, (const uint8_t *)d->io.map + d->off_y, (size_t)w->rows * sizeof(float));
  return TL_OK;
}

/* The arena's slices: a free gives nothing back, so they only grow. */
uint64_t vk_device_bytes(tl_backend *b, int dev) {
  (void)dev;
  pthread_mutex_lock(&b->mx);
  uint64_t bytes = b->arena.slice_bytes;
  pthread_mutex_unlock(&b->mx);
  return bytes;
}

void vk_dense_destroy(tl_backend *b) {
  vk_dense *d = &b->dense;
  vk_buf_destroy(b, &d->io);
  if (d->fence) vkDestroyFence(b->dev, d->fence, NULL);
  if (d->cmd_pool) vkDestroyCommandPool(b->dev, d->cmd_pool, NULL);
  d->fence = VK_NULL_HANDLE;
  d->cmd_pool = VK_NULL_HANDLE;
  d->cmd = VK_NULL_HANDLE;
}
