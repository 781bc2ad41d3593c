/**
 * Native defect vk-fresh-block-unordered: the first device-side write into a freshly
 * created device-local block (its fill and the first copy into it) is not ordered before
 * the groups that read it: the copy's transfer -> compute barrier is left out for a
 * fresh block.
 */
import type { NativeDefect } from './types.js';

export const defect: NativeDefect = {
  id: 'vk-fresh-block-unordered',
  title: "a fresh device-local block is read before its first device-side write is visible",
  history:
    "the seeds' open Vulkan finding: results from a freshly created device-local block differed slightly and nondeterministically until its first device-side touch was a fill; whatever the driver's cause, what tierlab can check is that the first write into a fresh block is ordered before any read of it",
  backends: ['vulkan'],
  runs: ['no early reserve'],
  caughtBy: 'synchronization validation: a read-after-write hazard between the copy and the group',
  patches: [
    {
      file: 'native/vulkan/vk_upload.c',
      find: '  vkCmdCopyBuffer(lane->cmd, from, c->buf, 2, reg);\n  barrier(lane->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,\n          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);',
      replace: '  vkCmdCopyBuffer(lane->cmd, from, c->buf, 2, reg);\n  if (c->filled)\n    barrier(lane->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,\n            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);',
    },
  ],
};
