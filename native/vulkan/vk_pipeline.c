/*
 * Vulkan backend: shader modules, descriptor layouts, pipelines, descriptor pools.
 *
 * Role: the compute side that never changes after init.
 *   set 0 (row_layout): one group row: 0 x, 1 qx, 2 ex, 3 h, 4 qh, 5 eh, 6 y, 7 lut;
 *   set 1, set 2 (tensor_layout): one tensor: 0 weights as uint[], 1 scales as float[].
 * Pipelines: quant_x and quant_h (one module, specialization constant 0 picks the
 * source), gateup (gate in set 1, up in set 2), down (down in set 1), dense (the
 * dense GEMV: its tensor in set 1, its own io through a set-0 set of its own).
 * Invariants: tensor descriptor sets come from pools of VK_TENSOR_POOL_SETS sets that
 * are added on demand; each pool's `used` count is kept exactly, so an allocation
 * never relies on VK_ERROR_OUT_OF_POOL_MEMORY; everything is destroyed at shutdown.
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static int set_layout(tl_backend *b, uint32_t nbind, VkDescriptorSetLayout *out, char *err,
                      size_t cap) {
  VkDescriptorSetLayoutBinding bind[8];
  for (uint32_t i = 0; i < nbind; i++)
    bind[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                             .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                             .descriptorCount = 1,
                                             .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = nbind,
      .pBindings = bind};
  VkResult r = vkCreateDescriptorSetLayout(b->dev, &ci, NULL, out);
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: descriptor set layout: %s", vk_result_str(r));
  }
  return TL_OK;
}

static int module(tl_backend *b, const uint32_t *code, size_t size, VkShaderModule *out, char *err,
                  size_t cap) {
  VkShaderModuleCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
  VkResult r = vkCreateShaderModule(b->dev, &ci, NULL, out);
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: shader module: %s", vk_result_str(r));
  }
  return TL_OK;
}

static int pipeline(tl_backend *b, VkShaderModule mod, int spec, VkPipeline *out, char *err,
                    size_t cap) {
  VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = sizeof(int32_t)};
  int32_t value = spec;
  VkSpecializationInfo si = {
      .mapEntryCount = 1, .pMapEntries = &entry, .dataSize = sizeof value, .pData = &value};
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = mod,
                .pName = "main",
                .pSpecializationInfo = spec >= 0 ? &si : NULL},
      .layout = b->layout};
  VkResult r = vkCreateComputePipelines(b->dev, VK_NULL_HANDLE, 1, &ci, NULL, out);
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: compute pipeline: %s", vk_result_str(r));
  }
  return TL_OK;
}

int vk_pipeline_create(tl_backend *b, char *err, size_t cap) {
  int rc;
  if ((rc = set_layout(b, 8, &b->row_layout, err, cap))) return rc;
  if ((rc = set_layout(b, 2, &b->tensor_layout, err, cap))) return rc;
  VkDescriptorSetLayout sets[3] = {b->row_layout, b->tensor_layout, b->tensor_layout};
  VkPushConstantRange pr = {
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = sizeof(vk_push)};
  VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                    .setLayoutCount = 3,
                                    .pSetLayouts = sets,
                                    .pushConstantRangeCount = 1,
                                    .pPushConstantRanges = &pr};
  VkResult r = vkCreatePipelineLayout(b->dev, &lci, NULL, &b->layout);
  if (r != VK_SUCCESS) {
    b->layout = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: pipeline layout: %s", vk_result_str(r));
  }
  if ((rc = module(b, vk_spv_quant, vk_spv_quant_size, &b->mod_quant, err, cap))) return rc;
  if ((rc = module(b, vk_spv_gateup, vk_spv_gateup_size, &b->mod_gateup, err, cap))) return rc;
  if ((rc = module(b, vk_spv_down, vk_spv_down_size, &b->mod_down, err, cap))) return rc;
  if ((rc = module(b, vk_spv_dense, vk_spv_dense_size, &b->mod_dense, err, cap))) return rc;
  if ((rc = pipeline(b, b->mod_quant, 0, &b->quant_x, err, cap))) return rc;
  if ((rc = pipeline(b, b->mod_quant, 1, &b->quant_h, err, cap))) return rc;
  if ((rc = pipeline(b, b->mod_gateup, -1, &b->gateup, err, cap))) return rc;
  if ((rc = pipeline(b, b->mod_down, -1, &b->down, err, cap))) return rc;
  if ((rc = pipeline(b, b->mod_dense, -1, &b->dense_pipe, err, cap))) return rc;

  /* the group's per-row sets and the dense GEMV's set: allocated once, freed with the
   * pool */
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             .descriptorCount = 8 * (TL_MAX_GROUP_ROWS + 1)};
  VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .maxSets = TL_MAX_GROUP_ROWS + 1,
                                    .poolSizeCount = 1,
                                    .pPoolSizes = &ps};
  if ((r = vkCreateDescriptorPool(b->dev, &pci, NULL, &b->row_pool)) != VK_SUCCESS) {
    b->row_pool = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: descriptor pool: %s", vk_result_str(r));
  }
  VkDescriptorSetLayout rl[TL_MAX_GROUP_ROWS];
  for (int i = 0; i < TL_MAX_GROUP_ROWS; i++) rl[i] = b->row_layout;
  VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                    .descriptorPool = b->row_pool,
                                    .descriptorSetCount = TL_MAX_GROUP_ROWS,
                                    .pSetLayouts = rl};
  if ((r = vkAllocateDescriptorSets(b->dev, &ai, b->group.rows)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: row descriptor sets: %s", vk_result_str(r));
  ai.descriptorSetCount = 1;
  if ((r = vkAllocateDescriptorSets(b->dev, &ai, &b->dense.set)) != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: dense descriptor set: %s", vk_result_str(r));
  return TL_OK;
}

static int pool_add(tl_backend *b, char *err, size_t cap) {
  vk_pool *p = realloc(b->pools, (size_t)(b->npools + 1) * sizeof *p);
  if (!p) return tl_fail(err, cap, TL_E_OOM, "vulkan: host allocation failed");
  b->pools = p;
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             .descriptorCount = 2 * VK_TENSOR_POOL_SETS};
  VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                                    .maxSets = VK_TENSOR_POOL_SETS,
                                    .poolSizeCount = 1,
                                    .pPoolSizes = &ps};
  VkDescriptorPool pool;
  VkResult r = vkCreateDescriptorPool(b->dev, &pci, NULL, &pool);
  if (r != VK_SUCCESS)
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: tensor descriptor pool: %s", vk_result_str(r));
  b->pools[b->npools].pool = pool;
  b->pools[b->npools].used = 0;
  b->npools++;
  return TL_OK;
}

int vk_tensor_set_alloc(tl_backend *b, vk_tensor *t, VkBuffer buf, char *err, size_t cap) {
  int at = -1;
  for (int i = 0; i < b->npools && at < 0; i++)
    if (b->pools[i].used < VK_TENSOR_POOL_SETS) at = i;
  if (at < 0) {
    int rc = pool_add(b, err, cap);
    if (rc) return rc;
    at = b->npools - 1;
  }
  VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                    .descriptorPool = b->pools[at].pool,
                                    .descriptorSetCount = 1,
                                    .pSetLayouts = &b->tensor_layout};
  VkResult r = vkAllocateDescriptorSets(b->dev, &ai, &t->set);
  if (r != VK_SUCCESS) {
    t->set = VK_NULL_HANDLE;
    return tl_fail(err, cap, TL_E_DEVICE, "vulkan: tensor descriptor set: %s", vk_result_str(r));
  }
  b->pools[at].used++;
  t->pool = at;
  VkDescriptorBufferInfo info[2] = {{.buffer = buf, .offset = t->w_off, .range = t->w_size},
                                    {.buffer = buf, .offset = t->s_off, .range = t->s_size}};
  VkWriteDescriptorSet w[2];
  for (int i = 0; i < 2; i++)
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = t->set,
                                  .dstBinding = (uint32_t)i,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &info[i]};
  vkUpdateDescriptorSets(b->dev, 2, w, 0, NULL);
  return TL_OK;
}

void vk_tensor_set_release(tl_backend *b, vk_tensor *t) {
  if (!t->set) return;
  vkFreeDescriptorSets(b->dev, b->pools[t->pool].pool, 1, &t->set);
  b->pools[t->pool].used--;
  t->set = VK_NULL_HANDLE;
}

void vk_pipeline_destroy(tl_backend *b) {
  VkPipeline *pl[] = {&b->quant_x, &b->quant_h, &b->gateup, &b->down, &b->dense_pipe};
  for (size_t i = 0; i < sizeof pl / sizeof *pl; i++) {
    if (*pl[i]) vkDestroyPipeline(b->dev, *pl[i], NULL);
    *pl[i] = VK_NULL_HANDLE;
  }
  VkShaderModule *m[] = {&b->mod_quant, &b->mod_gateup, &b->mod_down, &b->mod_dense};
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    if (*m[i]) vkDestroyShaderModule(b->dev, *m[i], NULL);
    *m[i] = VK_NULL_HANDLE;
  }
  /* destroying a pool frees its sets */
  for (int i = 0; i < b->npools; i++) vkDestroyDescriptorPool(b->dev, b->pools[i].pool, NULL);
  free(b->pools);
  b->pools = NULL;
  b->npools = 0;
  if (b->row_pool) vkDestroyDescriptorPool(b->dev, b->row_pool, NULL);
  b->row_pool = VK_NULL_HANDLE;
  memset(b->group.rows, 0, sizeof b->group.rows);
  b->dense.set = VK_NULL_HANDLE;
  if (b->layout) vkDestroyPipelineLayout(b->dev, b->layout, NULL);
  if (b->row_layout) vkDestroyDescriptorSetLayout(b->dev, b->row_layout, NULL);
  if (b->tensor_layout) vkDestroyDescriptorSetLayout(b->dev, b->tensor_layout, NULL);
  b->layout = VK_NULL_HANDLE;
  b->row_layout = b->tensor_layout = VK_NULL_HANDLE;
}
