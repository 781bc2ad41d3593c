/*
 * The allocator footprint rule (PROTOCOL.md; the same numbers as src/tier/sizes.ts):
 * boundaries of each band, the 8 KiB minimum, the sixteenth rounded up, saturation.
 */
#include "harness.h"

static void footprint_bands(void) {
  const uint64_t K = 1024, M = 1024 * 1024;
  struct {
    uint64_t in, out;
  } cases[] = {
      {0, 8 * K},
      {1, 8 * K},
      {7710, 8 * K}, /* 7710 + 482 = 8192 exactly */
      {7711, 16 * K}, /* 7711 + 482 = 8193: the sixteenth rounds up */
      {8 * K, 16 * K}, /* 8192 + 512 */
      {100000, 104 * K}, /* 100000 + 6250 = 106250 -> 13 steps of 8 KiB */
      {512 * K, 544 * K}, /* not over 512 KiB: 524288 + 32768 = 557056 */
      {512 * K + 1, 1 * M},
      {1 * M, 1 * M},
      {1 * M + 1, 2 * M},
      {2 * M, 2 * M},
      {3 * M, 4 * M},
      {256 * M + 1, 258 * M},
      {UINT64_MAX, UINT64_MAX}, /* saturates instead of wrapping */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t got = tl_alloc_footprint(cases[i].in);
    CHECK(got == cases[i].out);
  }
}

static void footprint_monotone(void) {
  uint64_t prev = 0;
  for (uint64_t b = 0; b < 3ull * 1024 * 1024; b += 977) {
    uint64_t f = tl_alloc_footprint(b);
    CHECK(f >= b);
    CHECK(f >= prev);
    prev = f;
  }
}

void suite_footprint(void) {
  th_run("footprint: bands, minimum, sixteenth, saturation", footprint_bands);
  th_run("footprint: never below the size, monotone", footprint_monotone);
}
