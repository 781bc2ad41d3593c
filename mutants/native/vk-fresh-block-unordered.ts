/**
 * Native defect vk-fresh-block-unordered: a freshly created device-local block is read
 * before its first device-side write has happened: the arena's fresh chunk is filled
 * (its first device-side touch) by a submission nobody waits for, while the tensor's
 * bytes are written into it and groups read them.
 */
import type { NativeDefect } from '../lib/native_defect.js';

export const defect: NativeDefect = {
  id: 'vk-fresh-block-unordered',
  title: 'a fresh device-local block is read before its first device-side write completed',
  history:
    "the seeds' open Vulkan finding: results computed from a freshly created device-local block differed, nondeterministically, until its first device-side touch was a fill done before anything else used it; here the fill of a fresh arena chunk is submitted and not waited for, so it lands among the weights written and read after it",
  backends: ['vulkan'],
  runs: ['no early reserve'],
  env: { TIERLAB_VK_UPLOAD: 'mapped' },
  caughtBy:
    'hidden states off the CPU-only run (weights zeroed under the groups); a command buffer reused while pending (validation)',
  patches: [
    {
      file: 'native/vulkan/vk_upload.c',
      find: '    record_fill(c, b->up_cmd, VK_PIPELINE_STAGE_HOST_BIT,\n                VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);\n    if ((rc = submit_wait(b, err, cap))) return rc;',
      replace:
        '    record_fill(c, b->up_cmd, VK_PIPELINE_STAGE_HOST_BIT,\n                VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);\n    (void)vkEndCommandBuffer(b->up_cmd);\n    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->up_cmd};\n    pthread_mutex_lock(&b->mx);\n    (void)vkQueueSubmit(b->queue, 1, &si, VK_NULL_HANDLE);\n    pthread_mutex_unlock(&b->mx);',
    },
  ],
};
