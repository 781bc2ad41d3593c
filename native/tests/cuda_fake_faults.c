/*
 * A copy that fails on the device after tl_tensor_upload_staged returned (run on the
 * fake CUDA runtime with TIERLAB_FAKE_CUDA_FAIL_COPY=1): the upload's completion
 * carries the error and its message, the tensor is refused by tl_group_issue with
 * TL_E_DEVICE and can still be freed, and the engine is destroyed cleanly (the
 * sanitizers check the rest). Prints "N passed, N failed"; exit 0 only when none failed.
 */
#include <stdio.h>
#include <string.h>

#include "expert_gen.h"

static int passed, failed;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s\n", what);
  }
}

int main(void) {
  char err[512];
  int dev = 0;
  tl_engine *eng = NULL;
  check(tl_engine_create(&dev, 1, 0, &eng, err, sizeof err) == TL_OK, "create");
  if (eng == NULL) return 1;
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  check(tl_engine_set_lut(eng, lut, err, sizeof err) == TL_OK, "set_lut");
  uint64_t rng = 99;
  tg_expert e;
  tl_ram *ram = NULL;
  tl_staging *s = NULL;
  tl_tensor *t[3] = {NULL, NULL, NULL};
  check(tg_expert_make(&e, &rng, TL_FMT_I8_ROW, 64, 64, 0) == 0, "expert");
  check(tg_expert_ram(eng, &e, &ram, err, sizeof err) == TL_OK, "ram");
  check(tl_stage(eng, ram, &s, err, sizeof err) == TL_OK, "stage");
  for (int p = 0; p < 3; p++) {
    check(tl_tensor_upload_staged(eng, 0, s, p, 10 + (uint64_t)p, &t[p], err, sizeof err) == TL_OK,
          "the upload call succeeds: the copy fails later");
  }
  tl_completion c[3];
  int got = 0, ready = 0, bad = 0;
  while (got < 3) {
    int n = 0;
    check(tl_completions_wait(eng, 3 - got, 10000, &ready, err, sizeof err) == TL_OK, "wait");
    check(tl_completions_take(eng, c + got, 3 - got, &n, err, sizeof err) == TL_OK, "take");
    if (n == 0) break;
    got += n;
  }
  int first_failed = 0;
  for (int i = 0; i < got; i++) {
    if (c[i].status == TL_OK) continue;
    /* later copies on the failed stream may fail too, as on a device */
    bad++;
    first_failed |= c[i].tag == 10;
    check(c[i].status == TL_E_DEVICE, "a failed copy is a device error");
    check(strstr(c[i].message, "upload copy") != NULL, "the completion says why");
    printf("failed upload reported: tag %llu: %s\n", (unsigned long long)c[i].tag, c[i].message);
  }
  check(got == 3 && bad >= 1 && first_failed, "three completions, the first copy's failed");
  float x[64] = {0}, y[64];
  check(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, 64, 0, err, sizeof err) == TL_E_DEVICE,
        "a group over the failed tensor is refused");
  check(strstr(err, "upload failed") != NULL, "and says so");
  (void)y;
  for (int p = 0; p < 3; p++) {
    check(tl_tensor_free(eng, t[p], err, sizeof err) == TL_OK, "a failed tensor can be freed");
  }
  check(tl_unstage(eng, s, err, sizeof err) == TL_OK, "unstage");
  check(tl_ram_free(eng, ram, err, sizeof err) == TL_OK, "ram free");
  check(tl_engine_destroy(eng, err, sizeof err) == TL_OK, "destroy");
  tg_expert_free(&e);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
