/*
 * The contract figures the seed engine's own tests pin (PROTOCOL.md, "Contract details"),
 * in the C tier, the same values the reference's tests use (test/protocol_ref/): the admission
 * rule in 64 bits, heat saturation and decay, the allocator granularity and exp_bytes,
 * the trunk charge, the heat file's bytes, and init's refusals in their order.
 */
#include <string.h>

#include "../tt_state.h"
#include "tt_fixture.h"

static void admission_in_64_bits(void) {
  CHECK(tt_admits(130, 100) == 1);
  CHECK(tt_admits(129, 100) == 0);
  CHECK(tt_admits(UINT32_MAX - 1, UINT32_MAX) == 0); /* would wrap in 32 bits */
  CHECK(tt_admits(5, 0) == 1 && tt_admits(4, 0) == 0); /* an equally hot one is refused */
  tt_slot s = {.heat = UINT32_MAX - 1};
  tt_heat_up(&s);
  tt_heat_up(&s);
  CHECK(s.heat == UINT32_MAX);
}

static void granularity_and_exp_bytes(void) {
  CHECK(tt_alloc_footprint(0) == 8192 && tt_alloc_footprint(1) == 8192);
  CHECK(tt_alloc_footprint(8192) == 16384);
  CHECK(tt_alloc_footprint(600 * 1024) == (1u << 20));
  CHECK(tt_alloc_footprint((1u << 20) + 1) == (2u << 20));
  CHECK(tt_alloc_footprint(UINT64_MAX) == UINT64_MAX); /* saturates, never wraps */
  tt_config c;
  tt_config_defaults(&c);
  /* the seed's 64 x 2048 int8 expert: gate and up [2048 x 64] with per-row scales, down
   * [64 x 2048] */
  uint64_t w[3] = {131072, 131072, 131072}, sc[3] = {8192, 8192, 256};
  memcpy(c.weight_bytes, w, sizeof w);
  memcpy(c.scale_bytes, sc, sizeof sc);
  CHECK(tt_expert_bytes(&c) == 458752);
  tt_trunk_offer o = {.weight_bytes = 3u << 20, .scale_bytes = 0};
  CHECK(tt_trunk_charge(&o) == (4u << 20));
  o.scale_bytes = 100;
  CHECK(tt_trunk_charge(&o) == (4u << 20) + 8192);
}

static void heat_file_bytes(void) {
  uint32_t heat[2] = {7, 0xdeadbeef}, back[2];
  uint8_t bytes[20];
  CHECK(tt_heat_file_bytes(1, 2) == 20);
  tt_heat_encode(heat, 1, 2, bytes);
  const uint8_t head[12] = {0x31, 0x48, 0x54, 0x51, 1, 0, 0, 0, 2, 0, 0, 0}; /* "1HTQ", 1, 2 */
  CHECK(memcmp(bytes, head, 12) == 0 && bytes[12] == 7 && bytes[16] == 0xef && bytes[19] == 0xde);
  CHECK(tt_heat_decode(bytes, 20, 1, 2, back) == 1 && back[1] == 0xdeadbeef);
  CHECK(tt_heat_decode(bytes, 19, 1, 2, back) == 0); /* truncated */
  CHECK(tt_heat_decode(bytes, 20, 2, 1, back) == 0); /* other counts */
}

/* Decay every 4 ticks halves heats: 9 -> 4. */
static void decay_halves(void) {
  tf_world w;
  tt_config cfg;
  tf_config(&cfg, 1, 4, 0);
  cfg.decay_period = 4;
  cfg.want_swaps = 0;
  TF_OPEN(&w, &cfg, 1, 1);
  CHECK(tt_init(w.tier, &cfg, NULL) == TT_INIT_ACTIVE);
  for (int i = 0; i < 9; i++) tt_note(w.tier, 0, 1, NULL);
  float x[8] = {0}, y[8];
  uint8_t mask[1];
  int route[1] = {0};
  for (int t = 0; t < 4; t++) {
    tt_issue(w.tier, 0, route, 1, x, mask);
    tt_take(w.tier, y, 1, 8);
  }
  tt_note(w.tier, 0, 1, NULL); /* after the 4th tick's decay: 9 >> 1 = 4, then 5 */
  tt_mem_sink_sort(&w.mem);
  size_t n = tt_mem_sink_count(&w.mem);
  uint32_t first = 0, last = 0;
  for (size_t i = 0; i < n; i++)
    if (w.mem.events[i].kind == TT_EV_NOTED) {
      if (first == 0) first = w.mem.events[i].heat;
      last = w.mem.events[i].heat;
    }
  CHECK(first == 1 && last == 5);
  CHECK(tf_count_events(&w, TT_EV_TICK) == 4);
  tf_close(&w);
}

void suite_tier_rules(void) {
  th_run("rules: admission in 64 bits, heat saturates", admission_in_64_bits);
  th_run("rules: allocator granularity, exp_bytes 458,752 for the seed's expert",
         granularity_and_exp_bytes);
  th_run("rules: the heat file's bytes", heat_file_bytes);
  th_run("rules: decay halves every heat", decay_halves);
}
