/*
 * Vulkan backend: a slow bus or a slow device on purpose, as the CPU and CUDA backends
 * have (TIERLAB_VK_COPY_DELAY_US: every upload from a RAM copy; TIERLAB_VK_GROUP_DELAY_US:
 * every group; read at engine creation).
 *
 * Why on the device and not in the caller: the oracle's slow runs exist so that groups
 * really meet copies still on their way and takes really meet groups still computing;
 * a caller that slept would only be slower. So a delayed command buffer starts by
 * waiting on a VkEvent, and the reaper that reports that command buffer sets the event
 * only after the delay: the device holds the work that long, the callers do not wait.
 * Invariants: an event is reset on the host before its command buffer is submitted (the
 * lane or group is free then: nothing pending waits on it) and set exactly once after;
 * without a delay nothing here runs and no event exists.
 */
#include <stdlib.h>
#include <time.h>

#include "vk_internal.h"

/* at most 1 s: a delay is a test knob, not a way to stall the queue */
#define VK_DELAY_MAX_US 1000000L

long vk_delay_from_env(const char *name) {
  const char *v = getenv(name);
  long us = v == NULL ? 0 : atol(v);
  return us < 0 ? 0 : us > VK_DELAY_MAX_US ? VK_DELAY_MAX_US : us;
}

int vk_delay_event_create(tl_backend *b, const char *what, VkEvent *ev, char *err, size_t cap) {
  VkEventCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkResult r = vkCreateEvent(b->dev, &ci, NULL, ev);
  if (r != VK_SUCCESS) {
    *ev = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: %s delay event: %s", what, vk_result_str(r));
  }
  return TL_OK;
}

void vk_delay_record(VkCommandBuffer cmd, VkEvent ev) {
  if (ev == VK_NULL_HANDLE) return;
  /* everything after this waits for the host's vkSetEvent */
  vkCmdWaitEvents(cmd, 1, &ev, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                  NULL, 0, NULL, 0, NULL);
}

int vk_delay_arm(tl_backend *b, VkEvent ev, char *err, size_t cap) {
  if (ev == VK_NULL_HANDLE) return TL_OK;
  VkResult r = vkResetEvent(b->dev, ev);
  return r == VK_SUCCESS
      ? TL_OK
      : tl_fail(err, cap, TL_E_DEVICE, "vulkan: delay event reset: %s", vk_result_str(r));
}

void vk_delay_release(tl_backend *b, VkEvent ev, long us) {
  if (ev == VK_NULL_HANDLE) return;
  struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {}
  /* a failure here surfaces as the fence wait's own error (device lost) */
  (void)vkSetEvent(b->dev, ev);
}
