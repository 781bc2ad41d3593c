/*
 * Vulkan backend: the fill-once weight arena.
 *
 * Role: resident weights live in chunks of DEVICE_LOCAL memory (HOST_VISIBLE too in
 * the mapped upload mode), allocated on demand (VK_ARENA_CHUNK_BYTES, or one tensor's
 * size when larger) and carved bottom-up, first fit over the chunks' free tails.
 * Invariants:
 *   - the arena NEVER reclaims: freeing a tensor gives nothing back, and the ledger
 *     keeps counting its slices (that is the point: an LFRU swap on this backend
 *     would leak one expert per swap, so the tier fills once);
 *   - the chunks together never exceed `limit` = min(capacity cap, memory budget);
 *     a tensor that does not fit returns TL_E_OOM and changes nothing;
 *   - chunks are destroyed only at shutdown;
 *   - everything here runs with mx held (the caller's job).
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static const VkBufferUsageFlags ARENA_USAGE =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

int vk_arena_init(tl_backend *b, uint64_t capacity_bytes, char *err, size_t cap) {
  vk_arena *a = &b->arena;
  /* The memory types a storage buffer may use: ask a throwaway buffer. */
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = 4096,
                            .usage = ARENA_USAGE,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer probe;
  VkResult r = vkCreateBuffer(b->dev, &bci, NULL, &probe);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkCreateBuffer: %s", vk_result_str(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(b->dev, probe, &req);
  vkDestroyBuffer(b->dev, probe, NULL);

  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int t;
  if (b->upload_mode == VK_UPLOAD_MAPPED) {
    /* written by the CPU in place: host-visible and coherent (no flushes), device
     * local when the card has such a window, else plain host memory */
    t = vk_find_type(b, req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (t < 0) t = vk_find_type(b, req.memoryTypeBits, hv, 0);
  } else {
    /* only the device writes it (copies): device-local, preferably not host-visible
     * (on a card without resizable BAR the host-visible window is small) */
    t = vk_find_type(b, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    if (t < 0) t = vk_find_type(b, req.memoryTypeBits, 0, 0);
  }
  if (t < 0)
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: no memory type for the weight arena");
  a->mem_type = (uint32_t)t;
  uint32_t heap = b->mprops.memoryTypes[t].heapIndex;
  VkDeviceSize budget = vk_device_budget(b, heap, NULL);
  a->limit = capacity_bytes && capacity_bytes < budget ? capacity_bytes : budget;
  a->align = b->props.limits.minStorageBufferOffsetAlignment;
  if (a->align < 64) a->align = 64;
  return TL_OK;
}

static int chunk_create(tl_backend *b, VkDeviceSize size, char *err, size_t cap) {
  vk_arena *a = &b->arena;
  if (a->nchunks == a->cap_chunks) {
    int n = a->cap_chunks ? a->cap_chunks * 2 : 8;
    vk_chunk *c = realloc(a->chunks, (size_t)n * sizeof *c);
    if (!c) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
    a->chunks = c;
    a->cap_chunks = n;
  }
  vk_chunk *c = &a->chunks[a->nchunks];
  memset(c, 0, sizeof *c);
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = size,
                            .usage = ARENA_USAGE,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(b->dev, &bci, NULL, &c->buf);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: arena vkCreateBuffer: %s", vk_result_str(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(b->dev, c->buf, &req);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = a->mem_type};
  int rc = TL_OK;
  r = vkAllocateMemory(b->dev, &mai, NULL, &c->mem);
  if (r != VK_SUCCESS) {
    c->mem = VK_NULL_HANDLE;
    rc = tl_fail(
        err, cap,
        r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? TL_E_OOM
                                                                               : TL_E_DEVICE,
        "vulkan: arena chunk of %llu bytes: %s", (unsigned long long)size, vk_result_str(r));
  } else if ((r = vkBindBufferMemory(b->dev, c->buf, c->mem, 0)) != VK_SUCCESS) {
    rc = tl_fail(err, cap, TL_E_DEVICE, "vulkan: arena vkBindBufferMemory: %s", vk_result_str(r));
  } else if (b->upload_mode == VK_UPLOAD_MAPPED &&
             (r = vkMapMemory(b->dev, c->mem, 0, VK_WHOLE_SIZE, 0, &c->map)) != VK_SUCCESS) {
    c->map = NULL;
    rc = tl_fail(err, cap, TL_E_DEVICE, "vulkan: arena vkMapMemory: %s", vk_result_str(r));
  }
  if (rc) {
    if (c->mem) vkFreeMemory(b->dev, c->mem, NULL);
    vkDestroyBuffer(b->dev, c->buf, NULL);
    return rc;
  }
  c->size = size;
  a->reserved += size;
  a->nchunks++;
  return TL_OK;
}

/* Where a tensor of w_size + s_size bytes lands in chunk c; 0 if it does not fit. */
static int place(const vk_arena *a, const vk_chunk *c, VkDeviceSize w_size, VkDeviceSize s_size,
                 VkDeviceSize *w_off, VkDeviceSize *s_off) {
  VkDeviceSize w = vk_align(c->top, a->align);
  VkDeviceSize s = vk_align(w + w_size, a->align);
  if (s + s_size > c->size) return 0;
  *w_off = w;
  *s_off = s;
  return 1;
}

int vk_arena_reserve(tl_backend *b, VkDeviceSize w_size, VkDeviceSize s_size, vk_tensor *t,
                     char *err, size_t cap) {
  vk_arena *a = &b->arena;
  VkDeviceSize w_off = 0, s_off = 0;
  int at = -1;
  for (int i = 0; i < a->nchunks && at < 0; i++)
    if (place(a, &a->chunks[i], w_size, s_size, &w_off, &s_off)) at = i;
  if (at < 0) {
    VkDeviceSize need = vk_align(w_size, a->align) + s_size;
    VkDeviceSize left = a->limit - a->reserved;
    VkDeviceSize size = need > VK_ARENA_CHUNK_BYTES ? need : VK_ARENA_CHUNK_BYTES;
    if (size > left) size = left;
    size = size / 4 * 4; /* vkCmdFillBuffer works in 32-bit words */
    if (size < need)
      return tl_fail(err, cap, TL_E_OOM,
                     "vulkan: arena full: %llu bytes needed, %llu of %llu left unallocated",
                     (unsigned long long)need, (unsigned long long)left,
                     (unsigned long long)a->limit);
    int rc = chunk_create(b, size, err, cap);
    if (rc) return rc;
    at = a->nchunks - 1;
    if (!place(a, &a->chunks[at], w_size, s_size, &w_off, &s_off))
      return tl_fail(err, cap, TL_E_INTERNAL, "vulkan: fresh arena chunk too small");
  }
  vk_chunk *c = &a->chunks[at];
  c->top = s_off + s_size;
  t->chunk = at;
  t->w_off = w_off;
  t->w_size = w_size;
  t->s_off = s_off;
  t->s_size = s_size;
  a->slices += 2; /* a weight and a scale allocation, as the protocol charges them */
  a->slice_bytes += w_size + s_size;
  return TL_OK;
}

int vk_arena_grow(tl_backend *b, VkDeviceSize bytes, char *err, size_t cap) {
  vk_arena *a = &b->arena;
  for (;;) {
    VkDeviceSize tails = 0;
    for (int i = 0; i < a->nchunks; i++) tails += a->chunks[i].size - a->chunks[i].top;
    VkDeviceSize left = a->limit - a->reserved;
    if (tails >= bytes || left < 4) return TL_OK;
    VkDeviceSize size = bytes - tails > VK_ARENA_CHUNK_BYTES ? VK_ARENA_CHUNK_BYTES : bytes - tails;
    if (size < VK_ARENA_CHUNK_BYTES && left >= VK_ARENA_CHUNK_BYTES) size = VK_ARENA_CHUNK_BYTES;
    if (size > left) size = left;
    int rc = chunk_create(b, size / 4 * 4, err, cap);
    if (rc != TL_OK) return rc;
  }
}

VkDeviceSize vk_arena_free_bytes(const vk_arena *a) {
  VkDeviceSize free_bytes = a->limit - a->reserved;
  for (int i = 0; i < a->nchunks; i++) free_bytes += a->chunks[i].size - a->chunks[i].top;
  return free_bytes;
}

void vk_arena_destroy(tl_backend *b) {
  vk_arena *a = &b->arena;
  for (int i = 0; i < a->nchunks; i++) {
    vk_chunk *c = &a->chunks[i];
    if (c->map) vkUnmapMemory(b->dev, c->mem);
    vkDestroyBuffer(b->dev, c->buf, NULL);
    vkFreeMemory(b->dev, c->mem, NULL);
  }
  free(a->chunks);
  a->chunks = NULL;
  a->nchunks = a->cap_chunks = 0;
  a->reserved = 0;
}
