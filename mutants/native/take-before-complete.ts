/**
 * Native defect take-before-complete: the group is reported finished before the device
 * has computed it, and take copies the outputs out without waiting.
 */
import type { NativeDefect } from '../lib/native_defect.js';

export const defect: NativeDefect = {
  id: 'take-before-complete',
  title: "take reads the group's outputs before the group completed",
  history:
    "the group's completion is what take trusts: reported at issue and read at once, take collects the previous group's outputs (or half-written ones) with a success status",
  backends: ['cpu', 'cuda', 'vulkan'],
  runs: ['slow device'],
  caughtBy:
    'wrong tokens and hidden states; on Vulkan a fence reset and a command buffer re-recorded while in use (validation)',
  patches: [
    {
      file: 'native/cpu/cpu_worker.c',
      find: '    run_job(d);\n    tl_group_done(d->owner, (int)(d - d->b->dev), tag, TL_OK, NULL);',
      replace: '    tl_group_done(d->owner, (int)(d - d->b->dev), tag, TL_OK, NULL);\n    run_job(d);',
    },
    {
      file: 'native/cpu/cpu_worker.c',
      find: '  while (d->phase != CPU_DONE) pthread_cond_wait(&d->cv, &d->mu);\n  memcpy(y, d->y, (size_t)n * (size_t)hidden * sizeof(float));',
      replace:
        '  memcpy(y, d->y, (size_t)n * (size_t)hidden * sizeof(float));\n  while (d->phase != CPU_DONE) pthread_cond_wait(&d->cv, &d->mu);',
    },
    {
      file: 'native/cuda/cuda_reaper.c',
      find: '    char msg[TL_COMPLETION_MESSAGE];\n    cudaError_t e = cudaEventSynchronize(d->group_done);\n    int status =\n        e == cudaSuccess ? TL_OK : cuda_fail(msg, sizeof msg, d->ordinal, "expert group", e);\n    tl_group_done(d->b->owner, d->index, tag, status, status == TL_OK ? NULL : msg);',
      replace:
        '    tl_group_done(d->b->owner, d->index, tag, TL_OK, NULL);\n    (void)cudaEventSynchronize(d->group_done);',
    },
    {
      file: 'native/cuda/cuda_group.c',
      find: '  CUDA_TRY(d, cudaEventSynchronize(d->group_done)); /* kernel faults surface here */',
      replace: '',
    },
    {
      file: 'native/vulkan/vk_lanes.c',
      find: '    VkResult r = vkWaitForFences(b->dev, 1, &b->group.fence, VK_TRUE, UINT64_MAX);',
      replace: '    VkResult r = VK_SUCCESS;',
    },
    {
      file: 'native/vulkan/vk_group.c',
      find: '  VkResult r = vkWaitForFences(b->dev, 1, &g->fence, VK_TRUE, UINT64_MAX);\n  pthread_mutex_lock(&b->mx);\n  g->inflight = 0;',
      replace: '  VkResult r = VK_SUCCESS;\n  pthread_mutex_lock(&b->mx);\n  g->inflight = 0;',
    },
  ],
};
