/*
 * The device allocator's granularity (PROTOCOL.md, "State"): what one allocation of
 * `bytes` really costs. The TypeScript tier (src/tier/sizes.ts) uses the same rule, so
 * budgets charged there match what this engine charges against capacity_bytes.
 *
 * Invariants: pure; footprint(b) >= b for every b; monotone; saturates at UINT64_MAX
 * instead of wrapping (such a size never fits any device).
 */
#include "../include/tierlab.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

static uint64_t round_up(uint64_t v, uint64_t step) {
  if (v > UINT64_MAX - (step - 1)) return UINT64_MAX;
  return (v + step - 1) / step * step;
}

TL_API uint64_t tl_alloc_footprint(uint64_t bytes) {
  if (bytes > MIB) return round_up(bytes, 2 * MIB);
  if (bytes > 512 * KIB) return round_up(bytes, MIB);
  /* size plus a sixteenth (rounded up, like the tier), in 8 KiB steps, 8 KiB minimum */
  uint64_t padded = bytes + (bytes + 15) / 16;
  uint64_t r = round_up(padded, 8 * KIB);
  return r < 8 * KIB ? 8 * KIB : r;
}
