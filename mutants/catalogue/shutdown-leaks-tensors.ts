/**
 * Mutant shutdown-leaks-tensors: shutdown joins the uploader but never releases the
 * resident tensors and staging copies it collected, so device allocations outlive the
 * tier.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'shutdown-leaks-tensors',
  title: 'shutdown does not free resident tensors and staging copies',
  history: 'a Vulkan validation layer counted 21 live allocations at device destruction',
  family: 'nothing left after shutdown',
  expectedProperties: ['POST-SHUTDOWN'],
  patches: [
    {
      file: 'src/tier/shutdown.ts',
      find:
        "  for (const r of release.tensors) yield { k: 'free', dev: r.dev, tensor: r.tensor };\n" +
        "  for (const s of release.staging) yield { k: 'unstage', staging: s };\n",
      replace: '',
    },
  ],
};
