/*
 * Vulkan backend: memory types and plain buffers.
 *
 * Role: the internal allocations (staging buffer, group io and scratch), each one
 * VkBuffer with its own VkDeviceMemory, mapped for good when host-visible.
 * Invariants: every live vk_buf is counted in the ledger (int_count, int_bytes, under
 * mx), so the ledger sees internal buffers as the ABI asks; callers never hold mx
 * when they create or destroy one.
 */
#include <string.h>

#include "vk_internal.h"

VkDeviceSize vk_align(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

/* A memory type allowed by `bits` that has every flag of `want`; one without any
 * flag of `avoid` is preferred, else any with `want`. -1 when there is none. */
int vk_find_type(tl_backend *b, uint32_t bits, VkMemoryPropertyFlags want,
                 VkMemoryPropertyFlags avoid) {
  int fallback = -1;
  for (uint32_t i = 0; i < b->mprops.memoryTypeCount; i++) {
    if (!(bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = b->mprops.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if (!(f & avoid)) return (int)i;
    if (fallback < 0) fallback = (int)i;
  }
  return fallback;
}

int vk_buf_create(tl_backend *b, VkDeviceSize size, VkBufferUsageFlags usage,
                  VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid,
                  VkMemoryPropertyFlags fallback, vk_buf *out, char *err, size_t cap) {
  memset(out, 0, sizeof *out);
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = size,
                            .usage = usage,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(b->dev, &bci, NULL, &out->buf);
  if (r != VK_SUCCESS) {
    out->buf = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkCreateBuffer(%llu): %s",
                   (unsigned long long)size, vk_result_str(r));
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(b->dev, out->buf, &req);
  int t = vk_find_type(b, req.memoryTypeBits, want, avoid);
  if (t < 0) t = vk_find_type(b, req.memoryTypeBits, fallback, 0);
  if (t < 0) {
    vk_buf_destroy(b, out);
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: no memory type for a buffer (flags %#x)",
                   (unsigned)fallback);
  }
  uint32_t type = (uint32_t)t;
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = type};
  r = vkAllocateMemory(b->dev, &mai, NULL, &out->mem);
  if (r != VK_SUCCESS) {
    out->mem = VK_NULL_HANDLE;
    vk_buf_destroy(b, out);
    return tl_fail(
        err, cap,
        r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? TL_E_OOM
                                                                               : TL_E_DEVICE,
        "vulkan: vkAllocateMemory(%llu): %s", (unsigned long long)req.size, vk_result_str(r));
  }
  if ((r = vkBindBufferMemory(b->dev, out->buf, out->mem, 0)) != VK_SUCCESS) {
    vk_buf_destroy(b, out);
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkBindBufferMemory: %s", vk_result_str(r));
  }
  if (b->mprops.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    if ((r = vkMapMemory(b->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS) {
      out->map = NULL;
      vk_buf_destroy(b, out);
      return tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkMapMemory: %s", vk_result_str(r));
    }
  }
  out->size = size;
  out->counted = 1;
  pthread_mutex_lock(&b->mx);
  b->int_count++;
  b->int_bytes += size;
  pthread_mutex_unlock(&b->mx);
  return TL_OK;
}

void vk_buf_uncount(tl_backend *b, vk_buf *buf) {
  if (!buf->counted) return;
  pthread_mutex_lock(&b->mx);
  b->int_count--;
  b->int_bytes -= buf->size;
  pthread_mutex_unlock(&b->mx);
  buf->counted = 0;
}

void vk_buf_destroy(tl_backend *b, vk_buf *buf) {
  vk_buf_uncount(b, buf); /* only a fully made buffer was counted */
  if (buf->map) vkUnmapMemory(b->dev, buf->mem);
  if (buf->buf) vkDestroyBuffer(b->dev, buf->buf, NULL);
  if (buf->mem) vkFreeMemory(b->dev, buf->mem, NULL);
  memset(buf, 0, sizeof *buf);
}
