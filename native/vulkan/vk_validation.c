/*
 * Vulkan backend: validation messages.
 *
 * Role: when TIERLAB_VK_VALIDATION is set ("1": core checks, "sync": core plus
 * synchronization validation), the instance asks for VK_LAYER_KHRONOS_validation and
 * installs a VK_EXT_debug_utils messenger. Every warning or error the layer (or the
 * loader) reports is printed to stderr and counted; tl_vk_validation_messages() reads
 * the count, so tests and the TypeScript side can fail on any message.
 * Invariants: the count is process-wide (messages outlive engines: leaked objects are
 * reported while an engine is destroyed) and only grows; info and verbose messages,
 * and the loader's echo of the environment, are neither printed nor counted.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tierlab_vulkan.h"
#include "vk_internal.h"

static atomic_int g_messages;

TL_API int tl_vk_validation_messages(void) { return atomic_load(&g_messages); }

int vk_validation_requested(void) {
  const char *v = getenv("TIERLAB_VK_VALIDATION");
  if (!v || !*v || strcmp(v, "0") == 0) return 0;
  if (strcmp(v, "sync") == 0) return 2;
  return 1;
}

/* The loader's own warnings (id "Loader Message") only echo the environment that
 * enabled the layer ("forced enabled due to env var ..."), once per instance: they
 * say nothing about this code, so they are neither counted nor printed. */
static int loader_chatter(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                          VkDebugUtilsMessageTypeFlagsEXT types,
                          const VkDebugUtilsMessengerCallbackDataEXT *data) {
  return !(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) &&
      types == VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT && data && data->pMessageIdName &&
      strcmp(data->pMessageIdName, "Loader Message") == 0;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
  (void)user;
  if (!(severity &
        (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
    return VK_FALSE;
  if (loader_chatter(severity, types, data)) return VK_FALSE;
  atomic_fetch_add(&g_messages, 1);
  fprintf(stderr, "tierlab vulkan validation %s [%s]: %s\n",
          (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
          data && data->pMessageIdName ? data->pMessageIdName : "-",
          data && data->pMessage ? data->pMessage : "(no text)");
  return VK_FALSE; /* never abort the call that triggered it */
}

/* The messenger description, used twice: chained into VkInstanceCreateInfo (so that
 * vkCreateInstance and vkDestroyInstance are covered) and for the lasting messenger. */
void vk_validation_chain(VkDebugUtilsMessengerCreateInfoEXT *ci) {
  memset(ci, 0, sizeof *ci);
  ci->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  ci->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  ci->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  ci->pfnUserCallback = on_message;
}

int vk_validation_install(tl_backend *b, char *err, size_t cap) {
  PFN_vkCreateDebugUtilsMessengerEXT create =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(b->inst,
                                                                "vkCreateDebugUtilsMessengerEXT");
  if (!create)
    return tl_fail(err, cap, TL_E_UNSUPPORTED,
                   "vulkan: vkCreateDebugUtilsMessengerEXT is not available");
  VkDebugUtilsMessengerCreateInfoEXT ci;
  vk_validation_chain(&ci);
  VkResult r = create(b->inst, &ci, NULL, &b->messenger);
  if (r != VK_SUCCESS) {
    b->messenger = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: debug messenger: %s", vk_result_str(r));
  }
  return TL_OK;
}

void vk_validation_remove(tl_backend *b) {
  if (!b->messenger) return;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy =
      (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(b->inst,
                                                                 "vkDestroyDebugUtilsMessengerEXT");
  if (destroy) destroy(b->inst, b->messenger, NULL);
  b->messenger = VK_NULL_HANDLE;
}
