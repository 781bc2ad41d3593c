/*
 * The configuration: the engine's defaults, what init refuses, and what one expert or
 * one trunk matrix is charged (PROTOCOL.md, "State": the allocator's granularity).
 *
 * The tier charges budgets with the allocator's footprint, never the payload (#687).
 * The arithmetic is the TypeScript tier's (src/tier/sizes.ts) in 64-bit integers:
 * over 1 MiB a multiple of 2 MiB, over 512 KiB a multiple of 1 MiB, below that the size
 * plus a sixteenth (rounded up) in 8 KiB steps, at least one step. Saturates instead of
 * wrapping.
 */
#include <stdio.h>
#include <string.h>

#include "tt.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

void tt_config_defaults(tt_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->ring_capacity = TT_QCAP;
  cfg->swap_period = 16;
  cfg->decay_period = 1024;
  cfg->reserve_bytes = 1ull << 30;
  cfg->want_swaps = 1;
  cfg->evict_capacity = 256; /* the TypeScript tier's default */
  for (int d = 0; d < TT_MAX_DEVICES; d++) cfg->budget_bytes[d] = TT_BUDGET_AUTO;
}

static uint64_t round_up(uint64_t v, uint64_t step) {
  uint64_t q = v / step + (v % step != 0);
  return q > UINT64_MAX / step ? UINT64_MAX : q * step;
}

uint64_t tt_alloc_footprint(uint64_t bytes) {
  if (bytes > MIB) return round_up(bytes, 2 * MIB);
  if (bytes > 512 * KIB) return round_up(bytes, MIB);
  uint64_t padded = bytes + (bytes / 16 + (bytes % 16 != 0));
  uint64_t r = round_up(padded, 8 * KIB);
  return r < 8 * KIB ? 8 * KIB : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t tt_expert_bytes(const tt_config *cfg) {
  uint64_t total = 0;
  for (int p = 0; p < 3; p++) {
    total = sat_add(total, tt_alloc_footprint(cfg->weight_bytes[p]));
    total = sat_add(total, tt_alloc_footprint(cfg->scale_bytes[p]));
  }
  return total;
}

uint64_t tt_trunk_charge(const tt_trunk_offer *o) {
  uint64_t w = tt_alloc_footprint(o->weight_bytes);
  return o->scale_bytes > 0 ? sat_add(w, tt_alloc_footprint(o->scale_bytes)) : w;
}

static _Thread_local char problem[160];

/* The protocol's refusals, in the TypeScript tier's order and words (src/tier/init.ts). */
const char *tt_config_problem(const tt_config *c) {
  if (c->topk > TT_GROUP_ROWS) {
    snprintf(problem, sizeof problem, "topk %d exceeds %d rows per group", c->topk, TT_GROUP_ROWS);
    return problem;
  }
  if (c->ram_capacity < c->experts && !c->streaming) {
    snprintf(problem, sizeof problem,
             "RAM holds %d of %d experts per layer: full residency needs streaming mode",
             c->ram_capacity, c->experts);
    return problem;
  }
  if (c->format == 1 && c->group != 0) {
    snprintf(problem, sizeof problem, "int8 experts are scaled per row, not in groups of %d",
             c->group);
    return problem;
  }
  if (c->streaming && c->heat_path != NULL) return "streaming mode has no heat-file warmstart";
  return NULL;
}
