/*
 * Vulkan backend: instance, device choice, logical device, memory budget.
 *
 * Role: open exactly one device with one compute queue.
 * Device numbering: the usable physical devices (those with a compute queue) in a
 * stable order, discrete GPUs first, then integrated, virtual, CPU (lavapipe), other;
 * the engine's device id is an index into that list, so id 0 is the best device.
 * Invariants: every object made here but the process-wide instance is destroyed by
 * vk_backend.c's shutdown; a failure leaves what was made for that shutdown to release
 * (handles start NULL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(e[i].extensionName, name) == 0) return 1;
  return 0;
}

/* Instance extensions from the loader and implicit layers, plus those of `layer`. */
static int instance_has(const char *layer, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  if (!e) return 0;
  int found =
      vkEnumerateInstanceExtensionProperties(layer, &n, e) == VK_SUCCESS && has_ext(e, n, name);
  free(e);
  return found;
}

static int layer_present(const char *name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkLayerProperties *l = calloc(n, sizeof *l);
  if (!l) return 0;
  int found = 0;
  if (vkEnumerateInstanceLayerProperties(&n, l) == VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(l[i].layerName, name) == 0;
  free(l);
  return found;
}

static const char *VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation";

static int create_instance(tl_backend *b, int want, char *err, size_t cap) {
  const char *exts[4];
  uint32_t next = 0;
  const char *layers[1];
  uint32_t nlayers = 0;
  VkInstanceCreateFlags flags = 0;

  /* MoltenVK and other portability drivers only enumerate with this. */
  if (instance_has(NULL, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    exts[next++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  VkDebugUtilsMessengerCreateInfoEXT dbg;
  VkValidationFeatureEnableEXT sync_enable =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features;
  const void *chain = NULL;
  if (want) {
    /* Asking for the layer here (as well as through the loader's environment) means
     * TIERLAB_VK_VALIDATION can never report a silent zero with no layer loaded. */
    if (!layer_present(VALIDATION_LAYER))
      return tl_fail(err, cap, TL_E_UNSUPPORTED,
                     "vulkan: TIERLAB_VK_VALIDATION is set but %s is not installed",
                     VALIDATION_LAYER);
    layers[nlayers++] = VALIDATION_LAYER;
    if (!instance_has(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
        !instance_has(VALIDATION_LAYER, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
      return tl_fail(err, cap, TL_E_UNSUPPORTED,
                     "vulkan: TIERLAB_VK_VALIDATION is set but VK_EXT_debug_utils is missing");
    exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    vk_validation_chain(&dbg);
    chain = &dbg;
    if (want == 2) {
      if (!instance_has(VALIDATION_LAYER, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME))
        return tl_fail(err, cap, TL_E_UNSUPPORTED,
                       "vulkan: synchronization validation needs VK_EXT_validation_features");
      exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
      memset(&features, 0, sizeof features);
      features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
      features.enabledValidationFeatureCount = 1;
      features.pEnabledValidationFeatures = &sync_enable;
      dbg.pNext = &features;
    }
  }

  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "tierlab",
                           .pEngineName = "tierlab",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pNext = chain,
                             .flags = flags,
                             .pApplicationInfo = &app,
                             .enabledLayerCount = nlayers,
                             .ppEnabledLayerNames = layers,
                             .enabledExtensionCount = next,
                             .ppEnabledExtensionNames = exts};
  VkResult r = vkCreateInstance(&ci, NULL, &b->inst);
  if (r != VK_SUCCESS) {
    b->inst = VK_NULL_HANDLE;
    return tl_fail(err, cap, r == VK_ERROR_INCOMPATIBLE_DRIVER ? TL_E_UNSUPPORTED : TL_E_DEVICE,
                   "vulkan: vkCreateInstance: %s", vk_result_str(r));
  }
  if (want) return vk_validation_install(b, err, cap);
  return TL_OK;
}

static int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

/* Queue family with compute; one without graphics first (a dedicated compute queue
 * does not share time with a display). -1 when there is none. */
static int compute_family(VkPhysicalDevice pd) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
  if (n == 0) return -1;
  VkQueueFamilyProperties *q = calloc(n, sizeof *q);
  if (!q) return -1;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
  int best = -1;
  for (uint32_t i = 0; i < n; i++) {
    if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || q[i].queueCount == 0) continue;
    if (best < 0 || !(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) best = (int)i;
    if (!(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) break;
  }
  free(q);
  return best;
}

static int pick_physical(tl_backend *b, int index, char *err, size_t cap) {
  uint32_t n = 0;
  VkResult r = vkEnumeratePhysicalDevices(b->inst, &n, NULL);
  if (r != VK_SUCCESS || n == 0)
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: no physical device (%s)", vk_result_str(r));
  VkPhysicalDevice *all = calloc(n, sizeof *all);
  VkPhysicalDevice *usable = calloc(n, sizeof *usable);
  int *rank = calloc(n, sizeof *rank);
  if (!all || !usable || !rank) {
    free(all), free(usable), free(rank);
    return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
  }
  r = vkEnumeratePhysicalDevices(b->inst, &n, all);
  uint32_t m = 0;
  for (uint32_t i = 0; r == VK_SUCCESS && i < n; i++) {
    if (compute_family(all[i]) < 0) continue;
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(all[i], &p);
    /* insertion keeps enumeration order within a rank: a stable numbering */
    int k = type_rank(p.deviceType);
    uint32_t at = m;
    while (at > 0 && rank[at - 1] > k) {
      usable[at] = usable[at - 1];
      rank[at] = rank[at - 1];
      at--;
    }
    usable[at] = all[i];
    rank[at] = k;
    m++;
  }
  int rc = TL_OK;
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    rc = tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkEnumeratePhysicalDevices: %s", vk_result_str(r));
  else if (m == 0)
    rc = tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: no device with a compute queue");
  else if (index < 0 || (uint32_t)index >= m)
    rc = tl_fail(err, cap, TL_E_ARG, "vulkan: device %d out of range (0..%u)", index, m - 1);
  else
    b->phys = usable[index];
  free(all), free(usable), free(rank);
  return rc;
}

static int device_has(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  if (!e) return 0;
  int found =
      vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) == VK_SUCCESS && has_ext(e, n, name);
  free(e);
  return found;
}

/*
 * One VkInstance per validation level for the whole process, made on first use and kept:
 * engines own their VkDevice only. Why: on an H200 with NVIDIA's driver 580, the 29th
 * vkCreateInstance of one process (after 28 engines made and destroyed in turn) failed
 * with VK_ERROR_INCOMPATIBLE_DRIVER; a reused instance never cycles.
 */
static pthread_mutex_t g_instance_mu = PTHREAD_MUTEX_INITIALIZER;
static VkInstance g_instance[3];

static int shared_instance(tl_backend *b, char *err, size_t cap) {
  const int want = vk_validation_requested();
  pthread_mutex_lock(&g_instance_mu);
  int rc = TL_OK;
  if (g_instance[want] == VK_NULL_HANDLE) {
    rc = create_instance(b, want, err, cap);
    if (rc == TL_OK) {
      g_instance[want] = b->inst; /* its messenger lives as long: messages are counted */
    } else if (b->inst != VK_NULL_HANDLE) {
      vk_validation_remove(b); /* the messenger failed after the instance was made */
      vkDestroyInstance(b->inst, NULL);
    }
  }
  b->inst = g_instance[want];
  b->messenger = VK_NULL_HANDLE; /* the instance's, not this engine's */
  pthread_mutex_unlock(&g_instance_mu);
  return rc;
}

int vk_device_open(tl_backend *b, int index, char *err, size_t cap) {
  int rc = shared_instance(b, err, cap);
  if (rc) return rc;
  if ((rc = pick_physical(b, index, err, cap))) return rc;
  vkGetPhysicalDeviceProperties(b->phys, &b->props);
  vkGetPhysicalDeviceMemoryProperties(b->phys, &b->mprops);
  if (b->props.apiVersion < VK_API_VERSION_1_1)
    return tl_fail(err, cap, TL_E_UNSUPPORTED, "vulkan: %s supports only Vulkan 1.0",
                   b->props.deviceName);
  b->qfam = (uint32_t)compute_family(b->phys);

  const char *exts[3];
  uint32_t next = 0;
  b->has_budget_ext = device_has(b->phys, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (b->has_budget_ext) exts[next++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
  /* staged uploads copy straight from imported RAM copies (vk_import.c) */
  b->has_host_import = device_has(b->phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  if (b->has_host_import) {
    exts[next++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &host};
    vkGetPhysicalDeviceProperties2(b->phys, &p2);
    b->import_align = host.minImportedHostPointerAlignment;
    if (b->import_align == 0) b->has_host_import = 0;
  }
  /* a portability implementation (MoltenVK) must have its subset enabled */
  if (device_has(b->phys, "VK_KHR_portability_subset")) exts[next++] = "VK_KHR_portability_subset";

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = b->qfam,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci,
                            .enabledExtensionCount = next,
                            .ppEnabledExtensionNames = exts};
  VkResult r = vkCreateDevice(b->phys, &dci, NULL, &b->dev);
  if (r != VK_SUCCESS) {
    b->dev = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: vkCreateDevice: %s", vk_result_str(r));
  }
  vkGetDeviceQueue(b->dev, b->qfam, 0, &b->queue);
  if (b->has_host_import) {
    b->host_pointer_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
        b->dev, "vkGetMemoryHostPointerPropertiesEXT");
    if (b->host_pointer_props == NULL) b->has_host_import = 0;
  }
  return TL_OK;
}

/* Bytes this process may still allocate from heap `heap`.
 * With VK_EXT_memory_budget: heapBudget - heapUsage, the driver's own estimate.
 * Without it (lavapipe, older drivers) a stated fallback: the heap size minus 1 GiB
 * (room for the display, other processes and our own internal buffers), but never
 * less than half the heap, so a small heap is not budgeted at zero. */
VkDeviceSize vk_device_budget(tl_backend *b, uint32_t heap, int *from_ext) {
  VkDeviceSize size = b->mprops.memoryHeaps[heap].size;
  if (b->has_budget_ext) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT bud = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &bud};
    vkGetPhysicalDeviceMemoryProperties2(b->phys, &p2);
    VkDeviceSize budget = bud.heapBudget[heap], usage = bud.heapUsage[heap];
    if (budget > 0) {
      if (from_ext) *from_ext = 1;
      return budget > usage ? budget - usage : 0;
    }
  }
  if (from_ext) *from_ext = 0;
  const VkDeviceSize gib = 1ull << 30;
  VkDeviceSize fallback = size > gib ? size - gib : 0;
  return fallback < size / 2 ? size / 2 : fallback;
}
