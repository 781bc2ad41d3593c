/*
 * Vulkan backend: upload lanes and the two reaper threads.
 *
 * Role: uploads from RAM copies are recorded on a lane (its own command buffer, fence
 * and staging slice), in batches of up to VK_LANE_BATCH, submitted, and left in flight;
 * b->nlanes lanes (TIERLAB_VK_LANES) keep the queue fed while the caller goes on. Why
 * batches: each submission costs the device a fixed time (on an H200 about that of a
 * 1 MiB copy), so one tensor per submission held 0.84 MiB tensors to half the bus.
 * A lane is submitted as soon as it is full, or while fewer than VK_LANE_LOW_WATER
 * lanes are in flight (the queue would run dry); else it collects uploads, and the
 * reaper submits it when the queue runs that low. One thread waits on the lanes'
 * fences in ring order and reports each upload (tl_upload_done); another waits on the
 * group's fence and reports the group (tl_group_done), so no caller waits for a report.
 * Copies are joined: a copy that continues the one before it in both buffers widens that
 * one's region instead of adding its own. An expert's three parts lie one after another,
 * weights then scales, in its RAM copy (ram.c) and in the arena (vk_arena.c) alike, with
 * the same 64-byte alignment, so its six regions become one (and those of experts
 * uploaded one after another, one too): fewer, longer copies for the device.
 * Invariants: a lane is free, open (recording, up_mx: only lane_next) or in flight (n
 * uploads, reap_mx); lanes are opened and submitted (lane_next, up_mx) and reaped
 * (lane_reap, reap_mx) in the same ring order, so the reaper never waits on a lane that
 * is not in flight; an open lane is submitted before any other upload submission (the
 * synchronous path), before any reader's (a group, the dense GEMV: the engine relies on
 * the queue's order for uploads still in flight) and before stop, and is never left open with fewer
 * than VK_LANE_LOW_WATER lanes in flight, so every upload is reported; lock order up_mx, then mx or
 * reap_mx, and the reaper holds neither when it takes up_mx; a group is reported once, and the next
 * issue waits for that before it resets the fence.
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

int vk_lanes_from_env(char *err, size_t cap) {
  const char *v = getenv("TIERLAB_VK_LANES");
  if (v == NULL || *v == '\0') return VK_UPLOAD_LANES;
  char *end = NULL;
  long n = strtol(v, &end, 10);
  if (*end != '\0' || n < 1 || n > VK_UPLOAD_LANES_MAX)
    return -tl_fail(err, cap, TL_E_ARG, "vulkan: TIERLAB_VK_LANES=%s (an integer 1..%d)", v,
                    VK_UPLOAD_LANES_MAX);
  return (int)n;
}

/* The reaper's turn at the open lane: submitted when the queue ran low (vk_lane_flush
 * reports its uploads failed if the submission fails; none is the reaper's own). */
static void flush_if_low(tl_backend *b) {
  char err[TL_COMPLETION_MESSAGE];
  pthread_mutex_lock(&b->up_mx);
  (void)vk_lane_flush_when_due(b, NULL, err, sizeof err);
  pthread_mutex_unlock(&b->up_mx);
}

static void *lane_main(void *arg) {
  tl_backend *b = arg;
  pthread_mutex_lock(&b->reap_mx);
  for (;;) {
    vk_lane *lane = &b->lanes[b->lane_reap];
    while (lane->n == 0 && !b->reap_stop) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
    if (lane->n == 0) break; /* stopping, nothing in flight */
    tl_tensor *t[VK_LANE_BATCH];
    const int n = lane->n;
    memcpy(t, lane->t, (size_t)n * sizeof *t);
    pthread_mutex_unlock(&b->reap_mx);
    VkResult r = vkWaitForFences(b->dev, 1, &lane->fence, VK_TRUE, UINT64_MAX);
    char msg[TL_COMPLETION_MESSAGE];
    int status = r == VK_SUCCESS
        ? TL_OK
        : tl_fail(msg, sizeof msg, TL_E_DEVICE, "vulkan: upload wait: %s", vk_result_str(r));
    pthread_mutex_lock(&b->reap_mx);
    lane->n = 0;
    b->lane_reap = (b->lane_reap + 1) % b->nlanes;
    b->lanes_in_flight--;
    pthread_cond_broadcast(&b->reap_cv);
    pthread_mutex_unlock(&b->reap_mx);
    for (int k = 0; k < n; k++) tl_upload_done(t[k], status, status == TL_OK ? NULL : msg);
    flush_if_low(b);
    pthread_mutex_lock(&b->reap_mx);
  }
  pthread_mutex_unlock(&b->reap_mx);
  return NULL;
}

static void *group_main(void *arg) {
  tl_backend *b = arg;
  pthread_mutex_lock(&b->reap_mx);
  for (;;) {
    while (!b->group_pending && !b->reap_stop) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
    if (!b->group_pending) break;
    const uint64_t tag = b->group_tag;
    pthread_mutex_unlock(&b->reap_mx);
    VkResult r = vkWaitForFences(b->dev, 1, &b->group.fence, VK_TRUE, UINT64_MAX);
    char msg[TL_COMPLETION_MESSAGE];
    int status = r == VK_SUCCESS
        ? TL_OK
        : tl_fail(msg, sizeof msg, TL_E_DEVICE, "vulkan: group wait: %s", vk_result_str(r));
    tl_group_done(b->owner, 0, tag, status, status == TL_OK ? NULL : msg);
    pthread_mutex_lock(&b->reap_mx);
    b->group_pending = 0;
    pthread_cond_broadcast(&b->reap_cv);
  }
  pthread_mutex_unlock(&b->reap_mx);
  return NULL;
}

int vk_lanes_init(tl_backend *b, char *err, size_t cap) {
  pthread_mutex_init(&b->reap_mx, NULL);
  pthread_cond_init(&b->reap_cv, NULL);
  b->reap_ok = 1;
  for (int i = 0; i < b->nlanes; i++) {
    vk_lane *l = &b->lanes[i];
    int rc = vk_lane_create(b, "upload lane", &l->pool, &l->cmd, &l->fence, err, cap);
    if (rc == TL_OK && b->copy_delay_us > 0)
      rc = vk_delay_event_create(b, "upload lane", &l->delay, err, cap);
    if (rc != TL_OK) return rc;
    if (b->upload_mode != VK_UPLOAD_STAGED) continue; /* mapped uploads need no staging */
    const VkMemoryPropertyFlags hv =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    rc = vk_buf_create(b, VK_LANE_STAGING_BYTES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, hv,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, hv, &l->staging, err, cap);
    if (rc != TL_OK) return rc;
  }
  int rc = pthread_create(&b->lane_thread, NULL, lane_main, b);
  if (rc == 0) b->lane_thread_ok = 1;
  if (rc == 0) rc = pthread_create(&b->group_thread, NULL, group_main, b);
  if (rc == 0) b->group_thread_ok = 1;
  if (rc != 0) {
    return tl_fail(err, cap, TL_E_INTERNAL, "vulkan: reaper thread: %s", strerror(rc));
  }
  return TL_OK;
}

void vk_lanes_stop(tl_backend *b) {
  if (!b->reap_ok) return;
  char err[TL_COMPLETION_MESSAGE];
  pthread_mutex_lock(&b->up_mx);
  (void)vk_lane_flush(b, NULL, err, sizeof err); /* a lane still open goes in flight */
  pthread_mutex_unlock(&b->up_mx);
  pthread_mutex_lock(&b->reap_mx);
  b->reap_stop = 1;
  pthread_cond_broadcast(&b->reap_cv);
  pthread_mutex_unlock(&b->reap_mx);
  if (b->lane_thread_ok) pthread_join(b->lane_thread, NULL);
  if (b->group_thread_ok) pthread_join(b->group_thread, NULL);
  b->lane_thread_ok = b->group_thread_ok = 0;
}

void vk_lanes_destroy(tl_backend *b) {
  for (int i = 0; i < VK_UPLOAD_LANES_MAX; i++) {
    vk_lane *l = &b->lanes[i];
    vk_buf_destroy(b, &l->staging);
    if (l->fence) vkDestroyFence(b->dev, l->fence, NULL);
    if (l->delay) vkDestroyEvent(b->dev, l->delay, NULL);
    if (l->pool) vkDestroyCommandPool(b->dev, l->pool, NULL); /* frees cmd */
    memset(l, 0, sizeof *l);
  }
  if (b->reap_ok) {
    pthread_cond_destroy(&b->reap_cv);
    pthread_mutex_destroy(&b->reap_mx);
    b->reap_ok = 0;
  }
}

static int has_room(const vk_lane *lane, VkDeviceSize staging) {
  return lane->recorded < VK_LANE_BATCH && lane->staged + staging <= VK_LANE_STAGING_BYTES;
}

int vk_lane_open(tl_backend *b, VkDeviceSize staging, vk_lane **out, char *err, size_t cap) {
  for (;;) {
    vk_lane *lane = &b->lanes[b->lane_next];
    if (b->lane_open) {
      if (has_room(lane, staging)) {
        *out = lane;
        return TL_OK;
      }
      int rc = vk_lane_flush(b, NULL, err, cap); /* full: off it goes, then the next */
      if (rc != TL_OK) return rc;
      continue;
    }
    pthread_mutex_lock(&b->reap_mx);
    const int busy = lane->n != 0;
    if (busy) {
      /* every lane in flight: wait for the oldest without up_mx, which the reaper takes
       * to submit an open lane; then look again (another caller may have opened one) */
      pthread_mutex_unlock(&b->up_mx);
      while (lane->n != 0) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
    }
    pthread_mutex_unlock(&b->reap_mx);
    if (busy) {
      pthread_mutex_lock(&b->up_mx);
      continue;
    }
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult r = vkBeginCommandBuffer(lane->cmd, &bi); /* resets it (pool flag) */
    if (r != VK_SUCCESS)
      return tl_fail(err, cap, TL_E_DEVICE, "vulkan: upload lane begin: %s", vk_result_str(r));
    vk_delay_record(b, lane->cmd, lane->delay);
    lane->recorded = 0;
    lane->staged = 0;
    lane->holding = 0;
    b->lane_open = 1;
    *out = lane;
    return TL_OK;
  }
}

int vk_lane_flush(tl_backend *b, const tl_tensor *mine, char *err, size_t cap) {
  if (!b->lane_open) return TL_OK;
  vk_lane *lane = &b->lanes[b->lane_next];
  if (lane->recorded == 0) return TL_OK; /* opened for an upload that then failed: kept */
  b->lane_open = 0;
  vk_lane_copies_out(lane);
  int rc = vk_submit(b, lane->cmd, lane->fence, lane->delay, "upload lane", err, cap);
  if (rc == TL_OK) vk_delay_schedule(b, lane->delay, b->copy_delay_us);
  if (rc != TL_OK) {
    /* the lane stays free; the batch's uploads were accepted, so they are reported */
    for (int k = 0; k < lane->recorded; k++)
      if (lane->t[k] != mine) tl_upload_done(lane->t[k], rc, err);
    lane->recorded = 0;
    return rc;
  }
  pthread_mutex_lock(&b->reap_mx);
  lane->n = lane->recorded;
  b->lanes_in_flight++;
  b->lane_next = (b->lane_next + 1) % b->nlanes;
  pthread_cond_broadcast(&b->reap_cv);
  pthread_mutex_unlock(&b->reap_mx);
  return TL_OK;
}

void vk_lane_copy(vk_lane *lane, VkBuffer src, VkBuffer dst, VkBufferCopy r) {
  VkBufferCopy *h = &lane->held;
  if (lane->holding && lane->held_src == src && lane->held_dst == dst &&
      h->srcOffset + h->size == r.srcOffset && h->dstOffset + h->size == r.dstOffset) {
    h->size += r.size;
    return;
  }
  vk_lane_copies_out(lane);
  lane->held_src = src;
  lane->held_dst = dst;
  lane->held = r;
  lane->holding = 1;
}

void vk_lane_copies_out(vk_lane *lane) {
  if (!lane->holding) return;
  vkCmdCopyBuffer(lane->cmd, lane->held_src, lane->held_dst, 1, &lane->held);
  lane->holding = 0;
}

int vk_lane_flush_when_due(tl_backend *b, const tl_tensor *mine, char *err, size_t cap) {
  if (!b->lane_open) return TL_OK;
  pthread_mutex_lock(&b->reap_mx);
  const int low = b->lanes_in_flight < VK_LANE_LOW_WATER;
  pthread_mutex_unlock(&b->reap_mx);
  const int full = b->lanes[b->lane_next].recorded == VK_LANE_BATCH;
  return low || full ? vk_lane_flush(b, mine, err, cap) : TL_OK;
}

int vk_lanes_submit_open(tl_backend *b, char *err, size_t cap) {
  pthread_mutex_lock(&b->up_mx);
  int rc = vk_lane_flush(b, NULL, err, cap);
  pthread_mutex_unlock(&b->up_mx);
  return rc;
}

void vk_group_reaped_wait(tl_backend *b) {
  pthread_mutex_lock(&b->reap_mx);
  while (b->group_pending) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
  pthread_mutex_unlock(&b->reap_mx);
}

void vk_group_submitted(tl_backend *b, uint64_t tag) {
  pthread_mutex_lock(&b->reap_mx);
  b->group_pending = 1;
  b->group_tag = tag;
  pthread_cond_broadcast(&b->reap_cv);
  pthread_mutex_unlock(&b->reap_mx);
}
