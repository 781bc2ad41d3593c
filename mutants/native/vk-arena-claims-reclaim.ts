/**
 * Native defect vk-arena-claims-reclaim: the Vulkan backend says freeing a tensor gives
 * its memory back, while its arena still never reclaims a slice; the tier then swaps,
 * and every swap leaks an expert's worth of device memory.
 */
import type { NativeDefect } from '../lib/native_defect.js';

export const defect: NativeDefect = {
  id: 'vk-arena-claims-reclaim',
  title: 'a fill-once arena that frees without reclaiming while swaps run',
  history:
    'the Vulkan tier ran out of VRAM after enough swaps: the arena never frees a slice, so swaps must follow what the backend can do (tl_reclaims), not what the engine wishes',
  backends: ['vulkan'],
  runs: ['half, swaps'],
  caughtBy: 'DEV-BUDGET: the backend holds more tensor bytes than the budget (tl_device_bytes)',
  patches: [
    {
      file: 'native/vulkan/vk_backend.c',
      find: '    .reclaims = 0,',
      replace: '    .reclaims = 1,',
    },
  ],
};
