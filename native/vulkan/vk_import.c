/*
 * Vulkan backend: RAM pool chunks imported as host memory (VK_EXT_external_memory_host).
 *
 * Role: the backend's host_register. A chunk of the engine's RAM pool becomes a
 * VkDeviceMemory over those very pages, with a transfer-source buffer bound to it, so
 * a staged upload copies straight from the RAM copy (vkCmdCopyBuffer) with no memcpy
 * into a staging buffer first. Where the extension is missing, or the chunk does not
 * meet minImportedHostPointerAlignment, registration fails and the chunk stays
 * pageable: uploads from it go through the lanes' staging slices.
 * Invariants: an import is destroyed (buffer, then memory) before the pool unmaps the
 * chunk; imports are host memory and are not counted in the ledger.
 */
#include <stdlib.h>

#include "vk_internal.h"

static const VkExternalMemoryHandleTypeFlagBits HOST =
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;

static int make_buffer(tl_backend *b, size_t bytes, vk_import *im, VkMemoryRequirements *req,
                       char *err, size_t cap) {
  VkExternalMemoryBufferCreateInfo ext = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = HOST};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .pNext = &ext,
                            .size = bytes,
                            .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(b->dev, &bci, NULL, &im->buf);
  if (r != VK_SUCCESS) {
    im->buf = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: import buffer: %s", vk_result_str(r));
  }
  vkGetBufferMemoryRequirements(b->dev, im->buf, req);
  return TL_OK;
}

static int import_memory(tl_backend *b, void *p, size_t bytes, const VkMemoryRequirements *req,
                         vk_import *im, char *err, size_t cap) {
  VkMemoryHostPointerPropertiesEXT props = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  VkResult r = b->host_pointer_props(b->dev, HOST, p, &props);
  if (r != VK_SUCCESS) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: host pointer properties: %s",
                   vk_result_str(r));
  }
  int type = vk_find_type(b, req->memoryTypeBits & props.memoryTypeBits, 0, 0);
  if (type < 0) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: no memory type imports host memory");
  }
  VkImportMemoryHostPointerInfoEXT imp = {
      .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
      .handleType = HOST,
      .pHostPointer = p};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .pNext = &imp,
                              .allocationSize = bytes,
                              .memoryTypeIndex = (uint32_t)type};
  r = vkAllocateMemory(b->dev, &mai, NULL, &im->mem);
  if (r != VK_SUCCESS) {
    im->mem = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: import of %zu bytes: %s", bytes,
                   vk_result_str(r));
  }
  r = vkBindBufferMemory(b->dev, im->buf, im->mem, 0);
  if (r != VK_SUCCESS) {
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: import bind: %s", vk_result_str(r));
  }
  return TL_OK;
}

int vk_host_register(tl_backend *b, void *p, size_t bytes, void **pin, char *err, size_t cap) {
  if (!b->has_host_import || b->upload_mode != VK_UPLOAD_STAGED) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: host memory import needs VK_EXT_external_memory_host and "
                   "staged uploads");
  }
  if ((uintptr_t)p % b->import_align != 0 || bytes % b->import_align != 0) {
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: chunk not aligned to minImportedHostPointerAlignment %llu",
                   (unsigned long long)b->import_align);
  }
  vk_import *im = calloc(1, sizeof *im);
  if (im == NULL) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
  VkMemoryRequirements req;
  int rc = make_buffer(b, bytes, im, &req, err, cap);
  if (rc == TL_OK && req.size > bytes) {
    rc = tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: import buffer needs %llu bytes, not %zu",
                 (unsigned long long)req.size, bytes);
  }
  if (rc == TL_OK) rc = import_memory(b, p, bytes, &req, im, err, cap);
  if (rc != TL_OK) {
    vk_host_unregister(b, im);
    return rc;
  }
  *pin = im;
  return TL_OK;
}

void vk_host_unregister(tl_backend *b, void *pin) {
  vk_import *im = pin;
  if (im->buf) vkDestroyBuffer(b->dev, im->buf, NULL);
  if (im->mem) vkFreeMemory(b->dev, im->mem, NULL);
  free(im);
}
