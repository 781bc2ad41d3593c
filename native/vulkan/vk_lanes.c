/*
 * Vulkan backend: upload lanes and the two reaper threads.
 *
 * Role: an upload from a RAM copy is recorded on a lane (its own command buffer, fence
 * and staging slice), submitted, and left in flight; VK_UPLOAD_LANES of them at once
 * keep the queue fed while the caller goes on. One thread waits on the lanes' fences in
 * ring order and reports each upload (tl_upload_done); another waits on the group's
 * fence and reports the group (tl_group_done), so no caller waits for a report.
 * Invariants (reap_mx): a lane is free (t NULL) or holds exactly one submitted upload;
 * lanes are filled (lane_next, under up_mx) and reaped (lane_reap) in the same ring
 * order, so the reaper never waits on a lane that is not in flight; a group is reported
 * once, and the next issue waits for that before it resets the fence; stop reports
 * everything pending first.
 */
#include <string.h>

#include "vk_internal.h"

static void *lane_main(void *arg) {
  tl_backend *b = arg;
  pthread_mutex_lock(&b->reap_mx);
  for (;;) {
    vk_lane *lane = &b->lanes[b->lane_reap];
    while (lane->t == NULL && !b->reap_stop) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
    if (lane->t == NULL) break; /* stopping, nothing in flight */
    tl_tensor *t = lane->t;
    pthread_mutex_unlock(&b->reap_mx);
    VkResult r = vkWaitForFences(b->dev, 1, &lane->fence, VK_TRUE, UINT64_MAX);
    char msg[TL_COMPLETION_MESSAGE];
    int status = r == VK_SUCCESS
        ? TL_OK
        : tl_fail(msg, sizeof msg, TL_E_DEVICE, "vulkan: upload wait: %s", vk_result_str(r));
    pthread_mutex_lock(&b->reap_mx);
    lane->t = NULL;
    b->lane_reap = (b->lane_reap + 1) % VK_UPLOAD_LANES;
    pthread_cond_broadcast(&b->reap_cv);
    pthread_mutex_unlock(&b->reap_mx);
    tl_upload_done(t, status, status == TL_OK ? NULL : msg); /* t may go from here */
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
  for (int i = 0; i < VK_UPLOAD_LANES; i++) {
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
  pthread_mutex_lock(&b->reap_mx);
  b->reap_stop = 1;
  pthread_cond_broadcast(&b->reap_cv);
  pthread_mutex_unlock(&b->reap_mx);
  if (b->lane_thread_ok) pthread_join(b->lane_thread, NULL);
  if (b->group_thread_ok) pthread_join(b->group_thread, NULL);
  b->lane_thread_ok = b->group_thread_ok = 0;
}

void vk_lanes_destroy(tl_backend *b) {
  for (int i = 0; i < VK_UPLOAD_LANES; i++) {
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

vk_lane *vk_lane_acquire(tl_backend *b) {
  vk_lane *lane = &b->lanes[b->lane_next];
  pthread_mutex_lock(&b->reap_mx);
  while (lane->t != NULL) pthread_cond_wait(&b->reap_cv, &b->reap_mx);
  pthread_mutex_unlock(&b->reap_mx);
  return lane;
}

void vk_lane_submitted(tl_backend *b, vk_lane *lane, tl_tensor *t) {
  pthread_mutex_lock(&b->reap_mx);
  lane->t = t;
  b->lane_next = (b->lane_next + 1) % VK_UPLOAD_LANES;
  pthread_cond_broadcast(&b->reap_cv);
  pthread_mutex_unlock(&b->reap_mx);
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
