/**
 * Native defect upload-done-early: an asynchronous upload reports its tensor landed
 * before the copy has completed, so a group issued meanwhile computes with bytes that
 * are not there yet.
 */
import type { NativeDefect } from '../lib/native_defect.js';

export const defect: NativeDefect = {
  id: 'upload-done-early',
  title: 'an upload reports success before its copy completes',
  history:
    'the contract of tl_tensor_upload_staged: a group that uses a tensor still uploading runs after its bytes landed; a backend that marks it landed at submission lets the group read a half-copied (or untouched) block, silently',
  backends: ['cpu', 'cuda', 'vulkan'],
  runs: ['slow bus'],
  caughtBy:
    'wrong tokens and hidden states (groups compute from unlanded weights); on Vulkan a lane reused while its copy is pending (validation)',
  patches: [
    {
      file: 'native/cpu/cpu_copy.c',
      find: '    if (pool->delay_us > 0) cpu_sleep_us(pool->delay_us);\n    memcpy(job->w, job->src, job->span_bytes);\n    tl_tensor *t = job->t;\n    pthread_mutex_lock(&pool->mu);\n    job->ready = 1;\n    pthread_cond_broadcast(&pool->ready);\n    pthread_mutex_unlock(&pool->mu);',
      replace:
        '    tl_tensor *t = job->t;\n    pthread_mutex_lock(&pool->mu);\n    job->ready = 1;\n    pthread_cond_broadcast(&pool->ready);\n    pthread_mutex_unlock(&pool->mu);\n    if (pool->delay_us > 0) cpu_sleep_us(pool->delay_us);\n    memcpy(job->w, job->src, job->span_bytes);',
    },
    {
      // landed at submission, as the history says: every group issued while the copy is
      // on its way skips the wait (marking only the tensor the reaper waits on, the
      // oldest in flight, was all but masked by the later ones a group waited for)
      file: 'native/cuda/cuda_tensor.c',
      find: '  ct->t = t; /* before the reaper can report it */\n  t->impl = ct;\n',
      replace: '  ct->t = t; /* before the reaper can report it */\n  t->impl = ct;\n  ct->landed = 1;\n',
    },
    {
      file: 'native/vulkan/vk_lanes.c',
      find: '    VkResult r = vkWaitForFences(b->dev, 1, &lane->fence, VK_TRUE, UINT64_MAX);',
      replace: '    VkResult r = VK_SUCCESS;',
    },
  ],
};
