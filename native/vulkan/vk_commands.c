/*
 * One submission lane: a resettable command pool, one primary command buffer and a
 * fence. The upload path and the group path each own one, so neither waits on the
 * other's submissions. On failure every handle not created stays VK_NULL_HANDLE, so the
 * backend's shutdown destroys exactly what exists.
 * Also the one barrier that makes uploads visible to the shaders, recorded at the start
 * of every command buffer that reads tensors (groups, the dense GEMV) rather than at the
 * end of every upload: a barrier's first scope holds every command submitted before it
 * on the queue, so one per reader covers all the copies before it, and the copies,
 * with no barrier between them, may overlap on the device.
 * And the upload paths' submission (end, fence reset, the slow bus's event armed, submit
 * under mx), written once for the lanes and the synchronous path.
 */
#include "vk_internal.h"

int vk_lane_create(tl_backend *b, const char *what, VkCommandPool *pool, VkCommandBuffer *cmd,
                   VkFence *fence, char *err, size_t cap) {
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = b->qfam};
  VkResult r = vkCreateCommandPool(b->dev, &pci, NULL, pool);
  if (r != VK_SUCCESS) {
    *pool = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s command pool: %s", what, vk_result_str(r));
  }
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                     .commandPool = *pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                     .commandBufferCount = 1};
  if ((r = vkAllocateCommandBuffers(b->dev, &cai, cmd)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s command buffer: %s", what, vk_result_str(r));
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if ((r = vkCreateFence(b->dev, &fci, NULL, fence)) != VK_SUCCESS) {
    *fence = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s fence: %s", what, vk_result_str(r));
  }
  return TL_OK;
}

void vk_uploads_visible(VkCommandBuffer cmd) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                       1, &mb, 0, NULL, 0, NULL);
}

int vk_submit(tl_backend *b, VkCommandBuffer cmd, VkFence fence, VkEvent delay, const char *what,
              char *err, size_t cap) {
  VkResult r = vkEndCommandBuffer(cmd);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s end: %s", what, vk_result_str(r));
  if ((r = vkResetFences(b->dev, 1, &fence)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s fence reset: %s", what, vk_result_str(r));
  int rc = vk_delay_arm(b, delay, err, cap);
  if (rc != TL_OK) return rc;
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  pthread_mutex_lock(&b->mx);
  r = vkQueueSubmit(b->queue, 1, &si, fence);
  pthread_mutex_unlock(&b->mx);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? TL_E_OOM : TL_E_DEVICE,
                   "vulkan: %s submit: %s", what, vk_result_str(r));
  return TL_OK;
}
