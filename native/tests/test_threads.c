/*
 * Concurrency as the tier uses it: an uploader thread uploads and frees tensors (the
 * koffi async calls) while the main thread issues and takes groups on the same devices.
 * Outputs stay bit-exact, a tensor of an open group cannot be freed from the other
 * thread, and the ledger returns to its baseline. Run under ASan, this also catches
 * use-after-free between the registry, the workers and the frees.
 */
#include <pthread.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

#define H 32
#define F 64
#define ROUNDS 60

typedef struct churn {
  tl_engine *eng;
  const tg_expert *e;
  tl_tensor *busy; /* used by open groups: freeing it must be refused or succeed later */
  int failures;
  int busy_refusals;
} churn;

static void *uploader(void *arg) {
  churn *c = arg;
  char err[ERR_CAP];
  for (int i = 0; i < ROUNDS; i++) {
    tl_tensor *t[3];
    if (tg_expert_upload(c->eng, i % 2, c->e, t, err, sizeof err) != TL_OK) {
      c->failures++;
      continue;
    }
    for (int p = 0; p < 3; p++) {
      if (tl_tensor_free(c->eng, t[p], err, sizeof err) != TL_OK) c->failures++;
    }
    int rc = tl_tensor_free(c->eng, c->busy, err, sizeof err);
    if (rc == TL_E_STATE) c->busy_refusals++;
    else if (rc != TL_E_ARG || strstr(err, "not a live tensor") == NULL) c->failures++;
    /* TL_E_ARG can only mean it was freed by an earlier round: never happens below */
  }
  return NULL;
}

static void upload_while_grouping(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 41;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_GROUP, H, F, 8) != 0) return;
  uint64_t c0, b0, c1, b1;
  fx_ledger(eng, &c0, &b0);
  tl_tensor *t0[3], *t1[3];
  fx_upload(eng, 0, &e, t0);
  fx_upload(eng, 1, &e, t1);
  float lut[TL_SILU_LUT_SIZE], x[4 * H], y[4 * H], want[H];
  tg_lut(lut);
  tg_fill(&rng, x, 4 * H, -1.0f, 1.0f);
  tl_tensor *g0[4] = {t0[0], t0[0], t0[0], t0[0]}, *u0[4] = {t0[1], t0[1], t0[1], t0[1]};
  tl_tensor *d0[4] = {t0[2], t0[2], t0[2], t0[2]};
  /* keep one group open on device 0 so the busy tensor is always in use */
  CHECK_CODE(tl_group_issue(eng, 0, 4, g0, u0, d0, x, H, err, sizeof err), TL_OK);
  churn c = {.eng = eng, .e = &e, .busy = t0[0]};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, uploader, &c) == 0);
  tl_tensor *g1[4] = {t1[0], t1[0], t1[0], t1[0]}, *u1[4] = {t1[1], t1[1], t1[1], t1[1]};
  tl_tensor *d1[4] = {t1[2], t1[2], t1[2], t1[2]};
  for (int i = 0; i < ROUNDS; i++) {
    CHECK_CODE(tl_group_issue(eng, 1, 4, g1, u1, d1, x, H, err, sizeof err), TL_OK);
    CHECK_CODE(tl_group_take(eng, 1, y, 4, H, err, sizeof err), TL_OK);
  }
  pthread_join(th, NULL);
  CHECK(c.failures == 0);
  CHECK(c.busy_refusals == ROUNDS);
  CHECK_CODE(tl_group_take(eng, 0, y, 4, H, err, sizeof err), TL_OK);
  for (int r = 0; r < 4; r++) {
    CHECK_CODE(tg_expert_cpu(&e, lut, x + r * H, want, err, sizeof err), TL_OK);
    CHECK(memcmp(y + r * H, want, sizeof want) == 0);
  }
  fx_free3(eng, t0);
  fx_free3(eng, t1);
  fx_ledger(eng, &c1, &b1);
  CHECK(c1 == c0 && b1 == b0);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

void suite_threads(void) {
  th_run("threads: uploads and frees on one thread, groups on another", upload_while_grouping);
}
