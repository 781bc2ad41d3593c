/**
 * C counterpart of mutant budget-by-payload (mutants/catalogue/budget-by-payload.ts): an
 * expert is charged its payload bytes, not the allocator's footprint: the planner plans
 * more than fits and uploads fail out of memory.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'budget-by-payload',
  title: "an expert is charged its payload, not the allocator's footprint",
  history: '#687: planned counts exceeded what the device held',
  family: 'accounting',
  expectedProperties: ['ACC-FOOTPRINT', 'DEV-BUDGET', 'POST-RESIDENCY', 'SPEC-INIT'],
  patches: [
    {
      file: 'native/tier/tt_config.c',
      find: '    total = sat_add(total, tt_alloc_footprint(cfg->weight_bytes[p]));\n    total = sat_add(total, tt_alloc_footprint(cfg->scale_bytes[p]));\n',
      replace: '    total = sat_add(total, cfg->weight_bytes[p]);\n    total = sat_add(total, cfg->scale_bytes[p]);\n',
    },
  ],
};
