/*
 * Vulkan backend: expert group issue and take.
 *
 * Role: run up to TL_MAX_GROUP_ROWS experts (MATH.md "expert") on the device.
 * Issue copies the input (and the SiLU table when it changed) into the group's own
 * host-visible io buffer (format 8's e4m3 table follows the SiLU table, written once at
 * init), records one command buffer and submits it with the group's fence, then
 * returns; take waits on the fence and copies the outputs out.
 * The command buffer, one stage after the other with a barrier between stages:
 *   quant x (per row)  ->  gate/up -> h (per row)  ->  quant h (per row)  ->  down -> y
 * Invariants:
 *   - the group's io (x, y, LUT) and scratch (qx, ex, h, qh, eh) buffers belong to the
 *     group alone and are made once at init, for the dispatcher's limits (TL_MAX_HIDDEN,
 *     TL_MAX_WIDTH), so the ledger of internal buffers is fixed from init on;
 *   - each row binds its own descriptor set over disjoint ranges of those buffers, so
 *     the dispatches of one stage never touch the same bytes (and synchronization
 *     validation, which sees whole descriptor ranges, agrees);
 *   - freshly created scratch is filled once with vkCmdFillBuffer before first use;
 *   - a failed issue leaves no group open; a failed take closes the group and leaves
 *     y untouched;
 *   - every submitted group is reported once by the group reaper (vk_lanes.c), and the
 *     fence is reset only after that report.
 */
#include <string.h>

#include "../src/e4m3.h"
#include "vk_internal.h"

static void bind_range(VkDescriptorBufferInfo *info, VkBuffer buf, VkDeviceSize off,
                       VkDeviceSize range) {
  info->buffer = buf;
  info->offset = off;
  info->range = range;
}

/* io and scratch for TL_MAX_GROUP_ROWS rows of TL_MAX_HIDDEN x TL_MAX_WIDTH, and the
 * row descriptor sets over them. */
static int make_buffers(tl_backend *b, char *err, size_t cap) {
  vk_group *g = &b->group;
  const VkDeviceSize R = TL_MAX_GROUP_ROWS;
  VkDeviceSize a = b->arena.align; /* storage-buffer offset alignment, at least 64 */
  g->row_h = vk_align((VkDeviceSize)TL_MAX_HIDDEN * 4, a);
  g->row_f = vk_align((VkDeviceSize)TL_MAX_WIDTH * 4, a);
  g->off_y = R * g->row_h;
  g->off_lut = 2 * R * g->row_h;
  const VkDeviceSize lut_bytes = (VK_LUT_ENTRIES + TL_E4M3_ENTRIES) * sizeof(float);
  VkDeviceSize io_size = g->off_lut + lut_bytes;
  g->off_h = R * g->row_h;
  g->off_qh = g->off_h + R * g->row_f;
  g->off_ex = g->off_qh + R * g->row_f;
  g->off_eh = g->off_ex + R * a;
  VkDeviceSize scratch_size = g->off_eh + R * a;

  const VkMemoryPropertyFlags hv =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  /* io is read back by the CPU: cached host memory when there is some */
  int rc = vk_buf_create(b, io_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0, hv, &g->io, err, cap);
  if (rc) return rc;
  /* format 8's decode table, read by gate/up and down right after the SiLU table */
  memcpy((uint8_t *)g->io.map + g->off_lut + VK_LUT_ENTRIES * sizeof(float), tl_e4m3_table,
         TL_E4M3_ENTRIES * sizeof(float));
  rc = vk_buf_create(b, scratch_size,
                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0,
                     &g->scratch, err, cap);
  if (rc) return rc;

  VkDescriptorBufferInfo info[TL_MAX_GROUP_ROWS][8];
  VkWriteDescriptorSet w[TL_MAX_GROUP_ROWS * 8];
  uint32_t nw = 0;
  for (int r = 0; r < TL_MAX_GROUP_ROWS; r++) {
    VkDeviceSize rr = (VkDeviceSize)r;
    bind_range(&info[r][0], g->io.buf, rr * g->row_h, g->row_h); /* x */
    bind_range(&info[r][1], g->scratch.buf, rr * g->row_h, g->row_h); /* qx */
    bind_range(&info[r][2], g->scratch.buf, g->off_ex + rr * a, a); /* ex */
    bind_range(&info[r][3], g->scratch.buf, g->off_h + rr * g->row_f, g->row_f); /* h */
    bind_range(&info[r][4], g->scratch.buf, g->off_qh + rr * g->row_f, g->row_f); /* qh */
    bind_range(&info[r][5], g->scratch.buf, g->off_eh + rr * a, a); /* eh */
    bind_range(&info[r][6], g->io.buf, g->off_y + rr * g->row_h, g->row_h); /* y */
    bind_range(&info[r][7], g->io.buf, g->off_lut, lut_bytes); /* lut, then e4m3 */
    for (uint32_t k = 0; k < 8; k++)
      w[nw++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = g->rows[r],
                                       .dstBinding = k,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &info[r][k]};
  }
  vkUpdateDescriptorSets(b->dev, nw, w, 0, NULL);
  g->needs_fill = 1;
  return TL_OK;
}

/* After vk_pipeline_create (the row sets exist). */
int vk_group_init(tl_backend *b, char *err, size_t cap) {
  vk_group *g = &b->group;
  int rc = vk_lane_create(b, "group", &g->cmd_pool, &g->cmd, &g->fence, err, cap);
  if (rc == TL_OK && b->group_delay_us > 0)
    rc = vk_delay_event_create(b, "group", &g->delay, err, cap);
  if (rc != TL_OK) return rc;
  return make_buffers(b, err, cap);
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = src_access,
                        .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

static void compute_to_compute(VkCommandBuffer cmd) {
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

static void push(tl_backend *b, VkCommandBuffer cmd, const vk_push *p) {
  vkCmdPushConstants(cmd, b->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *p, p);
}

static void set_tensor(int32_t *fmt, int32_t *rows, int32_t *cols, int32_t *group,
                       const tl_tensor *t) {
  *fmt = t->fmt;
  *rows = t->rows;
  *cols = t->cols;
  *group = t->fmt == TL_FMT_I4_GROUP ? t->group : t->cols;
}

static uint32_t groups_for(int n) { return ((uint32_t)n + VK_WG - 1) / VK_WG; }

static void record(tl_backend *b, int n, tl_tensor *const *gate, tl_tensor *const *up,
                   tl_tensor *const *down, int hidden) {
  vk_group *g = &b->group;
  VkCommandBuffer cmd = g->cmd;
  const VkPipelineBindPoint bp = VK_PIPELINE_BIND_POINT_COMPUTE;
  vk_uploads_visible(cmd);
  if (g->needs_fill) {
    vkCmdFillBuffer(cmd, g->scratch.buf, 0, VK_WHOLE_SIZE, 0);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
  vk_push p;

  vkCmdBindPipeline(cmd, bp, b->quant_x);
  for (int r = 0; r < n; r++) {
    memset(&p, 0, sizeof p);
    p.n = hidden;
    vkCmdBindDescriptorSets(cmd, bp, b->layout, 0, 1, &g->rows[r], 0, NULL);
    push(b, cmd, &p);
    vkCmdDispatch(cmd, 1, 1, 1);
  }
  compute_to_compute(cmd);

  vkCmdBindPipeline(cmd, bp, b->gateup);
  for (int r = 0; r < n; r++) {
    const vk_tensor *tg = gate[r]->impl, *tu = up[r]->impl;
    VkDescriptorSet sets[3] = {g->rows[r], tg->set, tu->set};
    memset(&p, 0, sizeof p);
    set_tensor(&p.fmt_a, &p.rows_a, &p.cols_a, &p.group_a, gate[r]);
    set_tensor(&p.fmt_b, &p.rows_b, &p.cols_b, &p.group_b, up[r]);
    vkCmdBindDescriptorSets(cmd, bp, b->layout, 0, 3, sets, 0, NULL);
    push(b, cmd, &p);
    vkCmdDispatch(cmd, groups_for(gate[r]->rows), 1, 1);
  }
  compute_to_compute(cmd);

  vkCmdBindPipeline(cmd, bp, b->quant_h);
  for (int r = 0; r < n; r++) {
    memset(&p, 0, sizeof p);
    p.n = gate[r]->rows;
    vkCmdBindDescriptorSets(cmd, bp, b->layout, 0, 1, &g->rows[r], 0, NULL);
    push(b, cmd, &p);
    vkCmdDispatch(cmd, 1, 1, 1);
  }
  compute_to_compute(cmd);

  vkCmdBindPipeline(cmd, bp, b->down);
  for (int r = 0; r < n; r++) {
    const vk_tensor *td = down[r]->impl;
    VkDescriptorSet sets[2] = {g->rows[r], td->set};
    memset(&p, 0, sizeof p);
    set_tensor(&p.fmt_a, &p.rows_a, &p.cols_a, &p.group_a, down[r]);
    vkCmdBindDescriptorSets(cmd, bp, b->layout, 0, 2, sets, 0, NULL);
    push(b, cmd, &p);
    vkCmdDispatch(cmd, groups_for(down[r]->rows), 1, 1);
  }
  /* y is read by the CPU after the fence */
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

int vk_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                   tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                   size_t cap) {
  (void)dev; /* one device: the dispatcher has checked dev == 0 */
  vk_group *g = &b->group;
  pthread_mutex_lock(&b->mx);
  int open = g->inflight, have_lut = b->lut_gen != 0;
  pthread_mutex_unlock(&b->mx);
  if (open) return tl_fail(err, cap, TL_E_STATE, "vulkan: a group is already open");
  if (!have_lut)
    return tl_fail(err, cap, TL_E_STATE, "vulkan: no SiLU table (tl_engine_set_lut first)");
  int rc = vk_lanes_submit_open(b, err, cap); /* uploads called before go first */
  if (rc != TL_OK) return rc;
  for (int r = 0; r < n; r++)
    memcpy((uint8_t *)g->io.map + (VkDeviceSize)r * g->row_h, x + (size_t)r * hidden,
           (size_t)hidden * sizeof(float));
  pthread_mutex_lock(&b->mx);
  if (g->lut_gen != b->lut_gen) {
    memcpy((uint8_t *)g->io.map + g->off_lut, b->lut, sizeof b->lut);
    g->lut_gen = b->lut_gen;
  }
  pthread_mutex_unlock(&b->mx);

  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(g->cmd, &bi);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: group begin: %s", vk_result_str(r));
  vk_delay_record(b, g->cmd, g->delay);
  record(b, n, gate, up, down, hidden);
  if ((r = vkEndCommandBuffer(g->cmd)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: group end: %s", vk_result_str(r));
  vk_group_reaped_wait(b); /* the reaper may still wait on the fence of the last group */
  if ((r = vkResetFences(b->dev, 1, &g->fence)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: group fence reset: %s", vk_result_str(r));
  rc = vk_delay_arm(b, g->delay, err, cap);
  if (rc != TL_OK) return rc;
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &g->cmd};
  pthread_mutex_lock(&b->mx);
  r = vkQueueSubmit(b->queue, 1, &si, g->fence);
  if (r == VK_SUCCESS) g->inflight = 1;
  pthread_mutex_unlock(&b->mx);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? TL_E_OOM : TL_E_DEVICE,
                   "vulkan: group submit: %s", vk_result_str(r));
  vk_delay_schedule(b, g->delay, b->group_delay_us);
  g->needs_fill = 0;
  g->n = n;
  g->hidden = hidden;
  vk_group_submitted(b, tag);
  return TL_OK;
}

int vk_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap) {
  (void)dev;
  vk_group *g = &b->group;
  pthread_mutex_lock(&b->mx);
  int open = g->inflight;
  pthread_mutex_unlock(&b->mx);
  if (!open) return tl_fail(err, cap, TL_E_STATE, "vulkan: take without an open group");
  VkResult r = vkWaitForFences(b->dev, 1, &g->fence, VK_TRUE, UINT64_MAX);
  pthread_mutex_lock(&b->mx);
  g->inflight = 0;
  pthread_mutex_unlock(&b->mx);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: group wait: %s", vk_result_str(r));
  if (n != g->n || hidden != g->hidden)
    return tl_fail(err, cap, TL_E_ARG, "vulkan: take of %d x %d, issued %d x %d", n, hidden, g->n,
                   g->hidden);
  for (int row = 0; row < n; row++)
    memcpy(y + (size_t)row * hidden,
           (const uint8_t *)g->io.map + g->off_y + (VkDeviceSize)row * g->row_h,
           (size_t)hidden * sizeof(float));
  return TL_OK;
}

void vk_group_destroy(tl_backend *b) {
  vk_group *g = &b->group;
  if (g->inflight && g->fence) vkWaitForFences(b->dev, 1, &g->fence, VK_TRUE, UINT64_MAX);
  g->inflight = 0;
  vk_buf_destroy(b, &g->io);
  vk_buf_destroy(b, &g->scratch);
  if (g->fence) vkDestroyFence(b->dev, g->fence, NULL);
  if (g->delay) vkDestroyEvent(b->dev, g->delay, NULL);
  if (g->cmd_pool) vkDestroyCommandPool(b->dev, g->cmd_pool, NULL);
  g->fence = VK_NULL_HANDLE;
  g->cmd_pool = VK_NULL_HANDLE;
  g->cmd = VK_NULL_HANDLE;
}
