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
    if (rc == TL_E_STATE)
      c->busy_refusals++;
    else if (rc != TL_E_ARG || strstr(err, "not a live tensor") == NULL)
      c->failures++;
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
  CHECK_CODE(tl_group_issue(eng, 0, 4, g0, u0, d0, x, H, 0, err, sizeof err), TL_OK);
  churn c = {.eng = eng, .e = &e, .busy = t0[0]};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, uploader, &c) == 0);
  tl_tensor *g1[4] = {t1[0], t1[0], t1[0], t1[0]}, *u1[4] = {t1[1], t1[1], t1[1], t1[1]};
  tl_tensor *d1[4] = {t1[2], t1[2], t1[2], t1[2]};
  for (int i = 0; i < ROUNDS; i++) {
    CHECK_CODE(tl_group_issue(eng, 1, 4, g1, u1, d1, x, H, 0, err, sizeof err), TL_OK);
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

/* The tier's real-world shape with RAM copies: an uploader thread stages, uploads (with
 * tags) and unstages while the main thread issues tagged groups over tensors that may
 * still be copying, and a third thread drains the completion queue in batches. */
typedef struct staged_churn {
  tl_engine *eng;
  tl_ram *ram;
  int failures;
  tl_tensor *made[ROUNDS][3];
} staged_churn;

typedef struct drainer {
  tl_engine *eng;
  int want, got, failures;
} drainer;

static void *staged_uploader(void *arg) {
  staged_churn *c = arg;
  char err[ERR_CAP];
  for (int i = 0; i < ROUNDS; i++) {
    tl_staging *s = NULL;
    if (tl_stage(c->eng, c->ram, &s, err, sizeof err) != TL_OK) {
      c->failures++;
      continue;
    }
    for (int p = 0; p < 3; p++) {
      uint64_t tag = 1 + 3 * (uint64_t)i + (uint64_t)p;
      if (tl_tensor_upload_staged(c->eng, i % 2, s, p, tag, &c->made[i][p], err, sizeof err) !=
          TL_OK) {
        c->failures++;
      }
    }
    if (tl_unstage(c->eng, s, err, sizeof err) != TL_OK) c->failures++;
  }
  return NULL;
}

static void *drain_all(void *arg) {
  drainer *d = arg;
  tl_completion batch[16];
  while (d->got < d->want) {
    int ready = 0, n = 0;
    if (tl_completions_wait(d->eng, 1, 5000, &ready, NULL, 0) != TL_OK || ready == 0) {
      d->failures++;
      return NULL;
    }
    if (tl_completions_take(d->eng, batch, 16, &n, NULL, 0) != TL_OK) d->failures++;
    for (int i = 0; i < n; i++) {
      if (batch[i].status != TL_OK) d->failures++;
    }
    d->got += n;
  }
  return NULL;
}

static void staged_uploads_while_grouping(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 43;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_ROW, H, F, 0) != 0) return;
  staged_churn c = {.eng = eng};
  CHECK_CODE(tg_expert_ram(eng, &e, &c.ram, err, sizeof err), TL_OK);
  tl_tensor *t[3];
  fx_upload(eng, 0, &e, t);
  drainer d = {.eng = eng, .want = 3 * ROUNDS + ROUNDS};
  pthread_t up, dr;
  CHECK(pthread_create(&up, NULL, staged_uploader, &c) == 0);
  CHECK(pthread_create(&dr, NULL, drain_all, &d) == 0);
  float lut[TL_SILU_LUT_SIZE], x[H], y[H], want[H];
  tg_lut(lut);
  tg_fill(&rng, x, H, -1.0f, 1.0f);
  CHECK_CODE(tg_expert_cpu(&e, lut, x, want, err, sizeof err), TL_OK);
  for (int i = 0; i < ROUNDS; i++) {
    CHECK_CODE(
        tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 10000 + (uint64_t)i, err, sizeof err),
        TL_OK);
    CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_OK);
    CHECK(memcmp(y, want, sizeof want) == 0);
  }
  pthread_join(up, NULL);
  pthread_join(dr, NULL);
  CHECK(c.failures == 0 && d.failures == 0 && d.got == d.want);
  for (int i = 0; i < ROUNDS; i++) { /* the staged tensors computed the same expert */
    if (i % 2 != 1) continue;
    CHECK_CODE(tl_group_issue(eng, 1, 1, &c.made[i][0], &c.made[i][1], &c.made[i][2], x, H, 0, err,
                              sizeof err),
               TL_OK);
    CHECK_CODE(tl_group_take(eng, 1, y, 1, H, err, sizeof err), TL_OK);
    CHECK(memcmp(y, want, sizeof want) == 0);
  }
  for (int i = 0; i < ROUNDS; i++) fx_free3(eng, c.made[i]);
  fx_free3(eng, t);
  CHECK_CODE(tl_ram_free(eng, c.ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

void suite_threads(void) {
  th_run("threads: uploads and frees on one thread, groups on another", upload_while_grouping);
  th_run("threads: staged uploads, tagged groups and a completion drainer at once",
         staged_uploads_while_grouping);
}
