/*
 * Uploads from staged RAM copies and the completion queue: a group issued while its
 * tensors may still be copying computes exactly tl_expert_cpu's outputs; every tagged
 * upload and group is reported once, in a batch; faults, capacity and bad arguments are
 * answered by the upload call itself; free and destroy with copies in flight release
 * everything (the sanitizers check it); a completion wait returns when the engine is
 * destroyed.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_fixture.h"
#include "harness.h"

#define H 64
#define F 128
#define EXPERTS 6
#define GROUP_TAG 1000u

/* Takes completions until `want` arrived or a 5 s wait finds nothing; returns the count.
 * seen[tag] counts each tag; every status must be TL_OK. */
static int drain(tl_engine *eng, int want, int *seen, int seen_cap) {
  char err[ERR_CAP];
  tl_completion batch[8];
  int got = 0, ready = 0;
  while (got < want) {
    int n = 0;
    CHECK_CODE(tl_completions_take(eng, batch, 8, &n, err, sizeof err), TL_OK);
    for (int i = 0; i < n; i++) {
      CHECK(batch[i].status == TL_OK && batch[i].message[0] == '\0');
      CHECK(batch[i].tag < (uint64_t)seen_cap);
      if (batch[i].tag < (uint64_t)seen_cap) seen[batch[i].tag]++;
    }
    got += n;
    if (n > 0 || got >= want) continue;
    CHECK_CODE(tl_completions_wait(eng, want - got, 5000, &ready, err, sizeof err), TL_OK);
    if (ready == 0) break;
  }
  return got;
}

static uint64_t part_tag(int e, int p) { return (uint64_t)(1 + 3 * e + p); }

static void staged_groups_exact(void) {
  char err[ERR_CAP];
  /* a slow bus (read at creation): the groups below surely meet copies still on the way */
  setenv("TIERLAB_CPU_COPY_DELAY_US", "20000", 1);
  tl_engine *eng = fx_engine(2, 0);
  unsetenv("TIERLAB_CPU_COPY_DELAY_US");
  uint64_t rng = 11;
  if (eng == NULL) return;
  uint64_t c0, b0, c1, b1;
  fx_ledger(eng, &c0, &b0);
  tg_expert e[EXPERTS];
  tl_tensor *t[EXPERTS][3];
  for (int i = 0; i < EXPERTS; i++) {
    if (tg_expert_make(&e[i], &rng, i % 2 ? TL_FMT_I4_GROUP : TL_FMT_I4_ROW, H, F, 16) != 0) {
      return;
    }
    tl_ram *ram = NULL;
    tl_staging *s = NULL;
    CHECK_CODE(tg_expert_ram(eng, &e[i], &ram, err, sizeof err), TL_OK);
    CHECK_CODE(tl_stage(eng, ram, &s, err, sizeof err), TL_OK);
    /* drop the handle at once: the staging reference and the uploads hold the bytes */
    CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_OK);
    for (int p = 0; p < 3; p++) {
      CHECK_CODE(
          tl_tensor_upload_staged(eng, i % 2, s, p, part_tag(i, p), &t[i][p], err, sizeof err),
          TL_OK);
    }
    CHECK_CODE(tl_unstage(eng, s, err, sizeof err), TL_OK);
  }
  /* groups at once, while copies may be in flight: the device waits for them */
  float x[3 * H], y[3 * H], want[H], lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  tg_fill(&rng, x, 3 * H, -1.0f, 1.0f);
  /* device 1 first: its group reads expert 5, whose tensors are the last in the copy
   * threads' FIFO, so it surely meets copies still on their way */
  for (int dev = 1; dev >= 0; dev--) {
    tl_tensor *g[3], *u[3], *d[3];
    for (int r = 0; r < 3; r++) {
      int i = 2 * r + dev;
      g[r] = t[i][0];
      u[r] = t[i][1];
      d[r] = t[i][2];
    }
    CHECK_CODE(
        tl_group_issue(eng, dev, 3, g, u, d, x, H, GROUP_TAG + (uint64_t)dev, err, sizeof err),
        TL_OK);
    CHECK_CODE(tl_group_take(eng, dev, y, 3, H, err, sizeof err), TL_OK);
    for (int r = 0; r < 3; r++) {
      CHECK_CODE(tg_expert_cpu(&e[2 * r + dev], lut, x + r * H, want, err, sizeof err), TL_OK);
      CHECK(memcmp(y + r * H, want, sizeof want) == 0);
    }
  }
  uint64_t issued = 0, met = 0;
  CHECK_CODE(tl_group_stats(eng, &issued, &met, err, sizeof err), TL_OK);
  CHECK(issued == 2 && met >= 1 && met <= 2); /* device 1's group at least */
  CHECK_CODE(tl_group_stats(eng, NULL, &met, err, sizeof err), TL_E_ARG);
  int seen[GROUP_TAG + 2] = {0};
  CHECK(drain(eng, 3 * EXPERTS + 2, seen, GROUP_TAG + 2) == 3 * EXPERTS + 2);
  for (int i = 0; i < EXPERTS; i++) {
    for (int p = 0; p < 3; p++) CHECK(seen[part_tag(i, p)] == 1);
  }
  CHECK(seen[GROUP_TAG] == 1 && seen[GROUP_TAG + 1] == 1);
  int n = -1;
  tl_completion one;
  CHECK_CODE(tl_completions_take(eng, &one, 1, &n, err, sizeof err), TL_OK);
  CHECK(n == 0); /* nothing twice */
  for (int i = 0; i < EXPERTS; i++) fx_free3(eng, t[i]);
  fx_ledger(eng, &c1, &b1);
  CHECK(c1 == c0 && b1 == b0);
  uint64_t copies = 1, host = 0, pinned = 0;
  CHECK_CODE(tl_ram_stats(eng, &copies, &host, &pinned, err, sizeof err), TL_OK);
  CHECK(copies == 0 && host > 0);
  for (int i = 0; i < EXPERTS; i++) tg_expert_free(&e[i]);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void upload_staged_answers(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 12;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  tl_ram *ram = NULL;
  tl_staging *s = NULL;
  CHECK_CODE(tg_expert_ram(eng, &e, &ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_stage(eng, ram, &s, err, sizeof err), TL_OK);
  tl_tensor *t = (tl_tensor *)&err;
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, 0, 0, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload_staged(NULL, 0, s, 0, 0, &t, err, sizeof err), TL_E_ARG);
  CHECK(t == NULL);
  CHECK_CODE(tl_tensor_upload_staged(eng, 2, s, 0, 0, &t, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, NULL, 0, 0, &t, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, (tl_staging *)ram, 0, 0, &t, err, sizeof err),
             TL_E_ARG); /* a RAM handle is not a staging reference */
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, 3, 0, &t, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "part must be in 0..2") != NULL);
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, -1, 0, &t, err, sizeof err), TL_E_ARG);
  uint64_t free0, total, free1;
  CHECK_CODE(tl_mem_info(eng, 0, &free0, &total, err, sizeof err), TL_OK);
  CHECK_CODE(tl_fault_arm(eng, "upload", 0, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, 0, 7, &t, err, sizeof err), TL_E_FAULT);
  CHECK(t == NULL);
  CHECK_CODE(tl_mem_info(eng, 0, &free1, &total, err, sizeof err), TL_OK);
  CHECK(free1 == free0); /* nothing charged, and no completion for a refused upload */
  int n = -1;
  tl_completion c;
  CHECK_CODE(tl_completions_take(eng, &c, 1, &n, err, sizeof err), TL_OK);
  CHECK(n == 0);
  CHECK_CODE(tl_unstage(eng, s, err, sizeof err), TL_OK);
  CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);

  /* a device with room for one expert: the fourth tensor is refused by the call */
  uint64_t one = 0;
  for (int p = 0; p < 3; p++) {
    one += tl_alloc_footprint(e.wbytes[p]) + tl_alloc_footprint(e.nscales[p] * sizeof(float));
  }
  eng = fx_engine(1, one);
  if (eng == NULL) return;
  CHECK_CODE(tg_expert_ram(eng, &e, &ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_stage(eng, ram, &s, err, sizeof err), TL_OK);
  tl_tensor *parts[3];
  for (int p = 0; p < 3; p++) {
    CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, p, 0, &parts[p], err, sizeof err), TL_OK);
  }
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s, 0, 0, &t, err, sizeof err), TL_E_OOM);
  CHECK(strstr(err, "device 0 is full") != NULL);
  fx_free3(eng, parts); /* frees right after the uploads: each waits for its copy */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK); /* the staging and RAM too */
  tg_expert_free(&e);
}

static void reserve_checks(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 64ull << 20);
  if (eng == NULL) return;
  uint64_t f0, t0, f1, t1;
  CHECK_CODE(tl_mem_info(eng, 1, &f0, &t0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_tensor_reserve(NULL, 0, 1 << 20, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_tensor_reserve(eng, 2, 1 << 20, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_tensor_reserve(eng, 0, 65ull << 20, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "capacity") != NULL);
  CHECK_CODE(tl_tensor_reserve(eng, 1, 32ull << 20, err, sizeof err), TL_OK);
  CHECK_CODE(tl_tensor_reserve(eng, 1, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_mem_info(eng, 1, &f1, &t1, err, sizeof err), TL_OK);
  CHECK(f1 == f0 && t1 == t0); /* not a charge */
  uint64_t rng = 15;
  tg_expert e;
  if (tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  tl_tensor *t[3];
  fx_upload(eng, 1, &e, t); /* from the reserved memory */
  fx_free3(eng, t);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void completion_args(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  if (eng == NULL) return;
  tl_completion c[2];
  int n = 0;
  CHECK_CODE(tl_completions_take(NULL, c, 2, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_take(eng, NULL, 2, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_take(eng, c, 0, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_take(eng, c, 2, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_wait(eng, 1, -1, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_wait(eng, 1, 60001, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_wait(eng, 0, 1, &n, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_completions_wait(eng, 1, 1, NULL, err, sizeof err), TL_E_ARG);
  n = -1;
  CHECK_CODE(tl_completions_wait(eng, 1, 1, &n, err, sizeof err), TL_OK); /* times out */
  CHECK(n == 0);
  double gbps = 0;
  CHECK_CODE(tl_copy_bandwidth(eng, 0, 0, 1, 1, &gbps, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_copy_bandwidth(eng, 1, 4096, 1, 1, &gbps, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_copy_bandwidth(eng, 0, 4096, 0, 1, &gbps, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_copy_bandwidth(eng, 0, 4096, 1, 2, &gbps, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_copy_bandwidth(eng, 0, 4096, 1, 1, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_copy_bandwidth(eng, 0, 1 << 20, 2, 0, &gbps, err, sizeof err), TL_OK);
  CHECK(gbps > 0);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

/* The layout the TypeScript binding reads completions with (binding.ts). */
static void completion_layout(void) {
  CHECK(sizeof(tl_completion) == 208);
  CHECK(offsetof(tl_completion, tag) == 0 && offsetof(tl_completion, done_ns) == 8);
  CHECK(offsetof(tl_completion, kind) == 16 && offsetof(tl_completion, status) == 20);
  CHECK(offsetof(tl_completion, dev) == 24 && offsetof(tl_completion, message) == 32);
  CHECK(sizeof(tl_part) == 32 && offsetof(tl_part, data_at) == 16 &&
        offsetof(tl_part, scales_at) == 24);
}

static void group_tag_and_faulted_take(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  uint64_t rng = 13;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  tl_tensor *t[3];
  fx_upload(eng, 0, &e, t);
  float x[H], y[H];
  tg_fill(&rng, x, H, -1.0f, 1.0f);
  memset(y, 0, sizeof y);
  CHECK_CODE(tl_fault_arm(eng, "take", 0, 0, err, sizeof err), TL_OK);
  const uint64_t before = tl_clock_ns();
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 42, err, sizeof err), TL_OK);
  int ready = 0, n = 0;
  tl_completion c;
  CHECK_CODE(tl_completions_wait(eng, 1, 5000, &ready, err, sizeof err), TL_OK);
  CHECK_CODE(tl_completions_take(eng, &c, 1, &n, err, sizeof err), TL_OK);
  /* the device finished it, at a time on the engine's clock */
  CHECK(n == 1 && c.tag == 42 && c.kind == TL_DONE_GROUP && c.status == TL_OK && c.dev == 0);
  CHECK(c.done_ns >= before && c.done_ns <= tl_clock_ns());
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_E_FAULT);
  CHECK(y[0] == 0.0f && y[H - 1] == 0.0f); /* a failed take leaves y untouched */
  fx_free3(eng, t);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void destroy_in_flight(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(2, 0);
  uint64_t rng = 14;
  tg_expert e;
  /* large tensors, so copies are likely still running when destroy starts */
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, 1024, 1024, 0) != 0) return;
  tl_ram *ram = NULL;
  tl_staging *s = NULL;
  CHECK_CODE(tg_expert_ram(eng, &e, &ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_stage(eng, ram, &s, err, sizeof err), TL_OK);
  for (int i = 0; i < 12; i++) {
    tl_tensor *t = NULL;
    CHECK_CODE(tl_tensor_upload_staged(eng, i % 2, s, i % 3, 1 + (uint64_t)i, &t, err, sizeof err),
               TL_OK);
  }
  /* tensors, the staging reference, the RAM copy and 12 completions left behind */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  tg_expert_free(&e);
}

typedef struct waiter {
  tl_engine *eng;
  int rc;
} waiter;

static void *wait_long(void *arg) {
  waiter *w = arg;
  int ready = 0;
  w->rc = tl_completions_wait(w->eng, 1, 60000, &ready, NULL, 0);
  return NULL;
}

static void wait_ends_at_destroy(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  if (eng == NULL) return;
  waiter w = {.eng = eng, .rc = -1};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, wait_long, &w) == 0);
  /* whether the wait began before destroy or not, it ends with TL_E_STATE at once */
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
  pthread_join(th, NULL);
  CHECK(w.rc == TL_E_STATE);
}

void suite_async(void) {
  th_run("async: groups over tensors still uploading are exact and counted; one completion each",
         staged_groups_exact);
  th_run("async: faults, capacity and bad arguments are answered by the upload call",
         upload_staged_answers);
  th_run("async: completion and copy-bandwidth arguments", completion_args);
  th_run("async: tl_tensor_reserve checks its arguments and charges nothing", reserve_checks);
  th_run("async: the completion and part layouts the binding reads", completion_layout);
  th_run("async: a tagged group is reported; a faulted take still fails",
         group_tag_and_faulted_take);
  th_run("async: destroy with copies in flight releases everything", destroy_in_flight);
  th_run("async: a completion wait ends when the engine is destroyed", wait_ends_at_destroy);
}
