/*
 * Vulkan backend: a slow bus or a slow device on purpose, as the CPU and CUDA backends
 * have (TIERLAB_VK_COPY_DELAY_US: every upload from a RAM copy; TIERLAB_VK_GROUP_DELAY_US:
 * every group; read at engine creation).
 *
 * Why on the device and not in the caller: the oracle's slow runs exist so that groups
 * really meet copies still on their way and takes really meet groups still computing;
 * a caller that slept would only be slower. So a delayed command buffer starts by
 * waiting on a VkEvent, and a timer thread of its own sets the event once the delay has
 * passed since the submission: the device holds the work that long, and whoever reports
 * the work (the reapers) sees it finish only by its fence, as without a delay.
 * Invariants: an event is reset on the host before its command buffer is submitted (the
 * lane or group is free then: nothing pending waits on it) and set exactly once after,
 * by the timer, under its mutex, which recording the wait takes too (a lane reused the
 * moment its fence signals would otherwise record while the set is still in progress);
 * stopping sets every event still due at once (the work it holds can then finish);
 * without a delay no event and no timer exist.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk_internal.h"

/* at most 1 s: a delay is a test knob, not a way to stall the queue */
#define VK_DELAY_MAX_US 1000000L

long vk_delay_from_env(const char *name) {
  const char *v = getenv(name);
  long us = v == NULL ? 0 : atol(v);
  return us < 0 ? 0 : us > VK_DELAY_MAX_US ? VK_DELAY_MAX_US : us;
}

static void *timer_main(void *arg) {
  tl_backend *b = arg;
  vk_delayer *t = &b->delayer;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    while (t->n == 0 && !t->stop) pthread_cond_wait(&t->cv, &t->mu);
    if (t->n == 0) break; /* stopping, nothing due */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const vk_delay_item first = t->items[0]; /* due in submission order: equal delays */
    const int early = !t->stop &&
        (now.tv_sec < first.due.tv_sec ||
         (now.tv_sec == first.due.tv_sec && now.tv_nsec < first.due.tv_nsec));
    if (early) {
      pthread_cond_timedwait(&t->cv, &t->mu, &first.due);
      continue;
    }
    memmove(&t->items[0], &t->items[1], (size_t)(t->n - 1) * sizeof t->items[0]);
    t->n--;
    /* under mu: the device may finish the held work, and its lane or group be recorded
     * again (vk_delay_record, under mu too), before this call returns; host access to an
     * event must be externally synchronized. A failure here surfaces as the fence wait's
     * own error (device lost) */
    (void)vkSetEvent(b->dev, first.ev);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

int vk_delay_start(tl_backend *b, char *err, size_t cap) {
  if (b->copy_delay_us == 0 && b->group_delay_us == 0) return TL_OK;
  vk_delayer *t = &b->delayer;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  int rc = pthread_mutex_init(&t->mu, NULL) == 0 && pthread_cond_init(&t->cv, &ca) == 0
      ? pthread_create(&t->thread, NULL, timer_main, b)
      : -1;
  pthread_condattr_destroy(&ca);
  if (rc != 0) return tl_fail(err, cap, TL_E_INTERNAL, "vulkan: delay timer thread: %d", rc);
  t->ok = 1;
  return TL_OK;
}

void vk_delay_stop(tl_backend *b) {
  vk_delayer *t = &b->delayer;
  if (!t->ok) return;
  pthread_mutex_lock(&t->mu);
  t->stop = 1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
  pthread_join(t->thread, NULL);
  pthread_cond_destroy(&t->cv);
  pthread_mutex_destroy(&t->mu);
  t->ok = 0;
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

void vk_delay_record(tl_backend *b, VkCommandBuffer cmd, VkEvent ev) {
  if (ev == VK_NULL_HANDLE) return;
  vk_delayer *t = &b->delayer;
  /* everything after this waits for the timer's vkSetEvent; recorded under the timer's
   * mutex, so never while the timer is still inside the set of the last submission */
  if (t->ok) pthread_mutex_lock(&t->mu);
  vkCmdWaitEvents(cmd, 1, &ev, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                  NULL, 0, NULL, 0, NULL);
  if (t->ok) pthread_mutex_unlock(&t->mu);
}

int vk_delay_arm(tl_backend *b, VkEvent ev, char *err, size_t cap) {
  if (ev == VK_NULL_HANDLE) return TL_OK;
  VkResult r = vkResetEvent(b->dev, ev);
  return r == VK_SUCCESS
      ? TL_OK
      : tl_fail(err, cap, TL_E_DEVICE, "vulkan: delay event reset: %s", vk_result_str(r));
}

void vk_delay_schedule(tl_backend *b, VkEvent ev, long us) {
  vk_delayer *t = &b->delayer;
  if (ev == VK_NULL_HANDLE || !t->ok) return;
  struct timespec due;
  clock_gettime(CLOCK_MONOTONIC, &due);
  due.tv_sec += us / 1000000;
  due.tv_nsec += (us % 1000000) * 1000;
  if (due.tv_nsec >= 1000000000L) {
    due.tv_sec++;
    due.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&t->mu);
  /* room for every event pending once (a lane or group is reused only after its fence);
   * an engine that reuses one early gets its delay cut short, never a device held for
   * ever */
  const int room = t->n < VK_DELAY_ITEMS;
  if (room) t->items[t->n++] = (vk_delay_item){ev, due};
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
  if (!room) (void)vkSetEvent(b->dev, ev);
}
