/*
 * Uploads joined into longer copies (cuda/cuda_hold.c), on the fake CUDA runtime: the
 * parts of many experts, uploaded back to back while the copies before them cannot run
 * (fake_cuda_stop_copies), go as fewer copies than tensors; a group issued over all of
 * them while some are still held waits for every one; each expert's output is
 * bit-identical to the CPU's math of its RAM copy, and every upload is reported landed.
 * Prints "N passed, N failed" (harness.h); exit 0 only when none failed.
 */
#include <stdio.h>
#include <string.h>

#include "expert_gen.h"
#include "fake_cuda.h"
#include "harness.h"

#define EXPERTS 16
#define HIDDEN 64

/* th_check with the check's own words for a name */
#define check(ok, what) th_check((ok) ? 1 : 0, what, __FILE__, __LINE__)

static void uploads_join(void);

int main(void) {
  th_run("uploads that continue each other go as one copy, and land as they would apart",
         uploads_join);
  return th_summary() == 0 ? 0 : 1;
}

static void uploads_join(void) {
  char err[ERR_CAP];
  int dev = 0;
  tl_engine *eng = NULL;
  check(tl_engine_create(&dev, 1, 0, &eng, err, sizeof err) == TL_OK, "create");
  if (eng == NULL) return;
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  check(tl_engine_set_lut(eng, lut, err, sizeof err) == TL_OK, "set_lut");
  uint64_t rng = 7;
  static tg_expert e[EXPERTS];
  static tl_ram *ram[EXPERTS];
  static tl_staging *s[EXPERTS];
  static tl_tensor *t[3][EXPERTS];
  for (int k = 0; k < EXPERTS; k++) {
    check(tg_expert_make(&e[k], &rng, TL_FMT_I8_ROW, HIDDEN, 64, 0) == 0, "expert");
    check(tg_expert_ram(eng, &e[k], &ram[k], err, sizeof err) == TL_OK, "ram");
    check(tl_stage(eng, ram[k], &s[k], err, sizeof err) == TL_OK, "stage");
  }

  fake_cuda_stop_copies(1);
  const uint64_t before = fake_cuda_async_copies();
  for (int k = 0; k < EXPERTS; k++)
    for (int p = 0; p < 3; p++)
      check(tl_tensor_upload_staged(eng, 0, s[k], p, 1 + 3 * (uint64_t)k + (uint64_t)p, &t[p][k],
                                    err, sizeof err) == TL_OK,
            "upload");
  /* counted before the group, whose own input and output are copies too: the first two
   * uploads go at once (fewer than two copies in flight), and after them each expert's
   * three parts continue each other in its RAM copy and in the tensor heap, so at most
   * one copy an expert (fewer where RAM copies lie one after another), the last held */
  const uint64_t copies = fake_cuda_async_copies() - before;
  printf("%d tensors uploaded in %llu copies, the last ones held\n", 3 * EXPERTS,
         (unsigned long long)copies);
  check(copies <= EXPERTS + 2, "uploads that continue each other go as one copy");
  static float x[EXPERTS * HIDDEN], y[EXPERTS * HIDDEN], want[HIDDEN];
  tg_fill(&rng, x, EXPERTS * HIDDEN, -1.0f, 1.0f);
  check(tl_group_issue(eng, 0, EXPERTS, t[0], t[1], t[2], x, HIDDEN, 0, err, sizeof err) == TL_OK,
        "a group over tensors still held or in flight is issued");
  fake_cuda_stop_copies(0);
  check(tl_group_take(eng, 0, y, EXPERTS, HIDDEN, err, sizeof err) == TL_OK, "take");
  for (int k = 0; k < EXPERTS; k++) {
    check(tl_expert_cpu_ram(eng, ram[k], x + k * HIDDEN, want, err, sizeof err) == TL_OK, "cpu");
    check(memcmp(want, y + k * HIDDEN, sizeof want) == 0,
          "each expert's output is the CPU's, bit for bit");
  }

  tl_completion c[64];
  int got = 0, ok = 0, ready = 0;
  /* a wait that ends with nothing queued (a busy machine) is only another round: the
   * verdict is what arrives, not how soon */
  for (int round = 0; got < 3 * EXPERTS && round < 1000; round++) {
    int n = 0;
    if (tl_completions_wait(eng, 3 * EXPERTS - got, 1000, &ready, err, sizeof err) != TL_OK) break;
    if (tl_completions_take(eng, c, 64, &n, err, sizeof err) != TL_OK) break;
    for (int i = 0; i < n; i++) ok += c[i].status == TL_OK && c[i].kind == TL_DONE_UPLOAD;
    got += n;
  }
  check(got == 3 * EXPERTS && ok == got, "every upload reported landed, once");
  for (int k = 0; k < EXPERTS; k++) {
    for (int p = 0; p < 3; p++)
      check(tl_tensor_free(eng, t[p][k], err, sizeof err) == TL_OK, "free");
    check(tl_unstage(eng, s[k], err, sizeof err) == TL_OK, "unstage");
    check(tl_ram_free(eng, ram[k], err, sizeof err) == TL_OK, "ram free");
    tg_expert_free(&e[k]);
  }
  check(tl_engine_destroy(eng, err, sizeof err) == TL_OK, "destroy");
}
