/**
 * Mutant budget-by-payload (#687): an expert is charged its payload bytes instead of the
 * device allocator's footprint (each of six allocations rounded up), so the planner plans
 * more experts than fit and uploads fail out of memory.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'budget-by-payload',
  title: 'exp_bytes is the payload, not the allocator footprint',
  history: '#687: planned experts failed to upload with out-of-memory on a full card',
  family: 'accounting',
  expectedProperties: ['ACC-FOOTPRINT', 'DEV-BUDGET', 'POST-RESIDENCY', 'SPEC-INIT'],
  patches: [
    {
      file: 'src/tier/sizes.ts',
      find: '    total += allocFootprint(cfg.weightBytes[p] ?? 0) + allocFootprint(cfg.scaleBytes[p] ?? 0);\n',
      replace: '    total += (cfg.weightBytes[p] ?? 0) + (cfg.scaleBytes[p] ?? 0);\n',
    },
  ],
};
