/*
 * CUDA self-test (make cuda-selftest; runs on a GPU machine): every visible device gets
 * random experts of all four formats, runs groups of up to 32 rows, and every output
 * row must be bit-identical (memcmp) to tl_expert_cpu on the same input. Edge rows
 * cover zero input, input below the 2^-60 threshold, huge input (LUT index clamps),
 * exact .5 rounding ties, and subnormal outputs. Then: ledger back to its baseline,
 * a faulted take, dense GEMVs inside an open group's window (bit-identical to
 * tl_dense_cpu), and host-to-device upload bandwidth through tl_tensor_upload. Every
 * case runs twice: uploads from the caller's memory, and uploads from staged RAM copies
 * (tl_tensor_upload_staged, RAM handle and staging dropped at once) with the groups
 * issued while the copies may still be in flight and every completion collected.
 *
 * Usage: cuda_selftest [ndev] [--quick | --small | --bandwidth]
 *   ndev: default every visible device, up to TL_MAX_DEVICES; --quick skips the
 *   largest shapes and the bandwidth measurement (for runs under compute-sanitizer);
 *   --small also skips the hidden-1024 shapes (for runs under ThreadSanitizer on the
 *   fake runtime); --bandwidth measures only the bandwidth. The CUDA backend fills its pinned
 * staging with TIERLAB_COPY_THREADS host threads (default 4). Prints "N passed, N failed" after the
 * checks; exit status 0 only when none failed. It uses only the public ABI, so it also runs against
 * libtierlab_cpu.so.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expert_gen.h"

#define ROWS TL_MAX_GROUP_ROWS
#define NEXP 8

static int passed, failed;
/* What the edge cases really reached (so a quiet pass is not a vacuous one). */
static long n_subnormal, n_inf, n_zero;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s\n", what);
  }
}

typedef struct test_case {
  const char *name;
  int fmt, hidden, width, group, rows;
  int edge; /* 1: edge inputs and scales */
} test_case;

/* Input regime of an edge row. */
static void fill_edge_row(uint64_t *rng, float *x, int H, int r) {
  switch ((r + r / 4) % 6) { /* with the row-to-expert map: 23 of 48 pairs */
    case 0:
      memset(x, 0, sizeof(float) * (size_t)H);
      break;
    case 1:
      tg_fill(rng, x, (size_t)H, -1e-20f, 1e-20f);
      break; /* below 2^-60 */
    case 2:
      tg_fill(rng, x, (size_t)H, -1e30f, 1e30f);
      break;
    case 3: /* amax 127 -> e = 0, every other value an exact .5 tie */
      for (int i = 0; i < H; i++) x[i] = (float)((i % 200) - 100) + 0.5f;
      x[H - 1] = 127.0f;
      break;
    case 4:
      tg_fill(rng, x, (size_t)H, -1e-15f, 1e-15f);
      break;
    default:
      tg_fill(rng, x, (size_t)H, -4.0f, 4.0f);
      break;
  }
}

/* Experts 5..7 of an edge case: overflow to infinity, saturated LUT index, subnormal
 * scales and outputs (no flush to zero anywhere). Format 8 keeps its scales normal: a
 * block sum times a subnormal scale, rounded twice (the product, then the ldexp), came
 * out one subnormal ulp apart on lavapipe (MATH.md, "Known limits"). */
static void edge_scales(tg_expert *e, int i) {
  if (e->fmt == TL_FMT_FP8_BLOCK && i == 7) return;
  for (int p = 0; p < 3 && i == 5; p++) {
    for (size_t k = 0; k < e->nscales[p]; k++) e->s[p][k] *= 1e6f;
  }
  if (i == 6)
    for (size_t k = 0; k < e->nscales[0]; k++) e->s[0][k] *= 1e4f;
  if (i == 7)
    for (size_t k = 0; k < e->nscales[2]; k++) e->s[2][k] *= 1e-40f;
}

typedef struct dev_run {
  tg_expert e[NEXP];
  tl_tensor *t[NEXP][3];
  float *x, *y;
  int nexp;
  int staged; /* uploaded from RAM copies, groups issued with a tag */
} dev_run;

static void report_mismatch(const char *name, int dev, int r, const float *got, const float *want,
                            int H) {
  for (int i = 0; i < H; i++) {
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      uint32_t a, b;
      memcpy(&a, &got[i], 4);
      memcpy(&b, &want[i], 4);
      printf("  %s dev %d row %d: y[%d] = %.9g (0x%08x), cpu %.9g (0x%08x)\n", name, dev, r, i,
             got[i], a, want[i], b);
      return;
    }
  }
}

/* Completions the staged runs asked for and have not collected yet. */
static uint64_t next_tag = 1;
static int tags_out;

/* The expert through a RAM copy: staged, every part uploaded with a tag, and the RAM
 * handle and the staging reference dropped at once (the uploads keep the bytes). */
static int upload_staged(tl_engine *eng, int dev, const tg_expert *e, tl_tensor *t[3], char *err,
                         size_t cap) {
  tl_ram *ram = NULL;
  tl_staging *s = NULL;
  int rc = tg_expert_ram(eng, e, &ram, err, cap);
  if (rc == TL_OK) rc = tl_stage(eng, ram, &s, err, cap);
  if (ram != NULL && tl_ram_free(eng, ram, err, cap) != TL_OK) rc = TL_E_INTERNAL;
  for (int p = 0; p < 3 && rc == TL_OK; p++) {
    rc = tl_tensor_upload_staged(eng, dev, s, p, next_tag++, &t[p], err, cap);
    if (rc == TL_OK) tags_out++;
  }
  if (s != NULL && tl_unstage(eng, s, err, cap) != TL_OK) rc = TL_E_INTERNAL;
  return rc;
}

/* Takes the completions asked for so far; each must say success. */
static void collect(tl_engine *eng, const char *name) {
  char err[512], what[200];
  tl_completion batch[64];
  int bad = 0;
  while (tags_out > 0) {
    int ready = 0, n = 0;
    if (tl_completions_wait(eng, tags_out, 30000, &ready, err, sizeof err) != TL_OK || ready == 0 ||
        tl_completions_take(eng, batch, 64, &n, err, sizeof err) != TL_OK) {
      snprintf(what, sizeof what, "%s: %d completions never came (%.80s)", name, tags_out, err);
      check(0, what);
      tags_out = 0;
      return;
    }
    for (int i = 0; i < n; i++) {
      if (batch[i].status != TL_OK) {
        printf("  completion %llu: status %d: %s\n", (unsigned long long)batch[i].tag,
               batch[i].status, batch[i].message);
        bad++;
      }
    }
    tags_out -= n;
  }
  snprintf(what, sizeof what, "%s: every upload and group completion says success", name);
  check(bad == 0, what);
}

static int prepare(tl_engine *eng, int dev, dev_run *d, const test_case *c, uint64_t *rng,
                   int staged) {
  char err[512];
  d->nexp = c->rows < NEXP ? c->rows : NEXP;
  d->staged = staged;
  d->x = malloc(sizeof(float) * (size_t)c->rows * (size_t)c->hidden);
  d->y = malloc(sizeof(float) * (size_t)c->rows * (size_t)c->hidden);
  if (d->x == NULL || d->y == NULL) return -1;
  for (int i = 0; i < d->nexp; i++) {
    if (tg_expert_make(&d->e[i], rng, c->fmt, c->hidden, c->width, c->group) != 0) return -1;
    if (c->edge) edge_scales(&d->e[i], i);
    int rc = staged ? upload_staged(eng, dev, &d->e[i], d->t[i], err, sizeof err)
                    : tg_expert_upload(eng, dev, &d->e[i], d->t[i], err, sizeof err);
    if (rc != TL_OK) {
      printf("  upload failed on dev %d: %s\n", dev, err);
      return -1;
    }
  }
  for (int r = 0; r < c->rows; r++) {
    float *x = d->x + (size_t)r * (size_t)c->hidden;
    if (c->edge)
      fill_edge_row(rng, x, c->hidden, r);
    else
      tg_fill(rng, x, (size_t)c->hidden, -3.0f, 3.0f);
  }
  return 0;
}

static int issue(tl_engine *eng, int dev, dev_run *d, const test_case *c) {
  char err[512];
  tl_tensor *g[ROWS], *u[ROWS], *dn[ROWS];
  for (int r = 0; r < c->rows; r++) { /* experts repeat and interleave across rows */
    int i = (r * 3 + r / d->nexp) % d->nexp;
    g[r] = d->t[i][0];
    u[r] = d->t[i][1];
    dn[r] = d->t[i][2];
  }
  /* staged: issued at once, while the copies may still be in flight */
  uint64_t tag = d->staged ? next_tag++ : 0;
  int rc = tl_group_issue(eng, dev, c->rows, g, u, dn, d->x, c->hidden, tag, err, sizeof err);
  if (rc != TL_OK) printf("  issue failed on dev %d: %s\n", dev, err);
  if (rc == TL_OK && tag != 0) tags_out++;
  return rc;
}

static void take_and_compare(tl_engine *eng, int dev, dev_run *d, const test_case *c,
                             const float *lut) {
  char err[512], what[160];
  const size_t H = (size_t)c->hidden;
  int rc = tl_group_take(eng, dev, d->y, c->rows, c->hidden, err, sizeof err);
  snprintf(what, sizeof what, "%s: take on dev %d (%.80s)", c->name, dev, err);
  check(rc == TL_OK, what);
  if (rc != TL_OK) return;
  float *want = malloc(sizeof(float) * H);
  if (want == NULL) return;
  for (int r = 0; r < c->rows; r++) {
    int i = (r * 3 + r / d->nexp) % d->nexp;
    rc = tg_expert_cpu(&d->e[i], lut, d->x + (size_t)r * H, want, err, sizeof err);
    int same = rc == TL_OK && memcmp(d->y + (size_t)r * H, want, sizeof(float) * H) == 0;
    if (!same) report_mismatch(c->name, dev, r, d->y + (size_t)r * H, want, c->hidden);
    for (size_t k = 0; k < H && c->edge; k++) {
      int cls = fpclassify(want[k]);
      n_subnormal += cls == FP_SUBNORMAL;
      n_inf += cls == FP_INFINITE;
      n_zero += cls == FP_ZERO;
    }
    snprintf(what, sizeof what, "%s: dev %d row %d bit-identical to tl_expert_cpu", c->name, dev,
             r);
    check(same, what);
  }
  free(want);
}

static void release(tl_engine *eng, dev_run *d) {
  for (int i = 0; i < NEXP; i++) {
    for (int p = 0; p < 3; p++) {
      if (d->t[i][p] != NULL) tl_tensor_free(eng, d->t[i][p], NULL, 0);
    }
    tg_expert_free(&d->e[i]);
  }
  free(d->x);
  free(d->y);
  memset(d, 0, sizeof *d);
}

static void run_case(tl_engine *eng, int ndev, const test_case *c, const float *lut, uint64_t *rng,
                     int staged) {
  dev_run runs[TL_MAX_DEVICES];
  memset(runs, 0, sizeof runs);
  int issued[TL_MAX_DEVICES] = {0};
  for (int d = 0; d < ndev; d++) { /* every device in flight at once */
    if (staged) { /* the staged runs reserve their device memory first, as a warmstart does */
      char err[512], what[160];
      uint64_t fp = 0;
      for (int p = 0; p < 3; p++) {
        int rows = p == 2 ? c->hidden : c->width, cols = p == 2 ? c->width : c->hidden;
        const int per_byte = c->fmt == TL_FMT_I4_ROW || c->fmt == TL_FMT_I4_GROUP ? 2 : 1;
        uint64_t w = (uint64_t)rows * (uint64_t)cols / (uint64_t)per_byte;
        uint64_t blocks = (uint64_t)((rows + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK) *
            (uint64_t)((cols + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK);
        uint64_t ns = c->fmt == TL_FMT_I4_GROUP ? (uint64_t)rows * (uint64_t)(cols / c->group)
            : c->fmt == TL_FMT_FP8_BLOCK        ? blocks
                                                : (uint64_t)rows;
        fp += tl_alloc_footprint(w) + tl_alloc_footprint(4 * ns);
      }
      int rc = tl_tensor_reserve(eng, d, fp * NEXP, err, sizeof err);
      snprintf(what, sizeof what, "%s: reserve dev %d (%.80s)", c->name, d, err);
      check(rc == TL_OK, what);
    }
    int ok = prepare(eng, d, &runs[d], c, rng, staged) == 0;
    char what[160];
    snprintf(what, sizeof what, "%s: prepare dev %d", c->name, d);
    check(ok, what);
    if (ok) issued[d] = issue(eng, d, &runs[d], c) == TL_OK;
    snprintf(what, sizeof what, "%s: issue dev %d", c->name, d);
    if (ok) check(issued[d], what);
  }
  for (int d = 0; d < ndev; d++) {
    if (issued[d]) take_and_compare(eng, d, &runs[d], c, lut);
    release(eng, &runs[d]);
  }
  if (staged) collect(eng, c->name);
  printf("%-34s rows %2d x %d device(s), %s: %d passed, %d failed so far\n", c->name, c->rows, ndev,
         staged ? "staged RAM copies" : "direct uploads", passed, failed);
  fflush(stdout);
}

/* The take fault on device 0: TL_E_FAULT, y untouched, the group closed. */
static void fault_check(tl_engine *eng, const float *lut, uint64_t *rng) {
  (void)lut;
  test_case c = {"fault", TL_FMT_I8_ROW, 128, 128, 0, 1, 0};
  dev_run d;
  memset(&d, 0, sizeof d);
  char err[512];
  if (prepare(eng, 0, &d, &c, rng, 0) == 0 && issue(eng, 0, &d, &c) == TL_OK) {
    for (int i = 0; i < c.hidden; i++) d.y[i] = -7.0f;
    /* armed after issue: counts only takes */
    check(tl_fault_arm(eng, "take", 0, 0, err, sizeof err) == TL_OK, "fault: arm take");
    check(tl_group_take(eng, 0, d.y, 1, c.hidden, err, sizeof err) == TL_E_FAULT,
          "fault: take answers TL_E_FAULT");
    int untouched = 1;
    for (int i = 0; i < c.hidden; i++) untouched &= d.y[i] == -7.0f;
    check(untouched, "fault: y untouched");
    check(tl_group_take(eng, 0, d.y, 1, c.hidden, err, sizeof err) == TL_E_STATE,
          "fault: group closed");
  } else {
    check(0, "fault: prepare and issue");
  }
  release(eng, &d);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 256 MiB int8 tensors, 5 uploads per device, from ordinary (pageable) host memory as
 * the tier hands it over; the backend stages through pinned memory. */
static void bandwidth(tl_engine *eng, int ndev) {
  const int rows = 16384, cols = 16384, reps = 5;
  const size_t bytes = (size_t)rows * (size_t)cols;
  unsigned char *w = malloc(bytes);
  float *s = malloc(sizeof(float) * (size_t)rows);
  if (w == NULL || s == NULL) {
    check(0, "bandwidth: host memory");
    free(w);
    free(s);
    return;
  }
  for (size_t i = 0; i < bytes; i++) w[i] = (unsigned char)(i * 131u);
  for (int i = 0; i < rows; i++) s[i] = 0.01f;
  unsigned char *copy = malloc(bytes); /* one core's memcpy, for comparison */
  if (copy != NULL) {
    memset(copy, 1, bytes);
    double t0 = now_s();
    memcpy(copy, w, bytes);
    double dt = now_s() - t0;
    printf("host memcpy, one thread, 256 MiB: %.1f GB/s (check byte %u)\n",
           (double)bytes / dt / 1e9, copy[bytes / 3]);
    free(copy);
  }
  for (int d = 0; d < ndev; d++) {
    double best = 0.0, total = 0.0;
    int ok = 1;
    for (int k = 0; k < reps && ok; k++) {
      char err[512];
      tl_tensor *t = NULL;
      double t0 = now_s();
      ok = tl_tensor_upload(eng, d, TL_FMT_I8_ROW, rows, cols, 0, w, bytes, s, (size_t)rows, &t,
                            err, sizeof err) == TL_OK;
      double dt = now_s() - t0;
      if (!ok) printf("  upload failed: %s\n", err);
      if (ok) tl_tensor_free(eng, t, NULL, 0);
      double gbs = (double)(bytes + sizeof(float) * (size_t)rows) / dt / 1e9;
      total += gbs;
      if (gbs > best) best = gbs;
    }
    check(ok, "bandwidth: uploads");
    if (ok) {
      printf(
          "upload bandwidth dev %d: %d x 256 MiB through tl_tensor_upload: best %.1f GB/s,"
          " mean %.1f GB/s\n",
          d, reps, best, total / reps);
    }
  }
  free(w);
  free(s);
}

/* The dense GEMV on every device, inside the window of an open group there: each
 * output bit-identical to tl_dense_cpu, and the group's outputs still its own. */
static void dense_check(tl_engine *eng, int ndev, const float *lut, uint64_t *rng) {
  static const int shapes[4][2] = {{64, 64}, {8, 256}, {320, 256}, {4096, 1024}};
  char err[512], what[160];
  int bad = 0, runs = 0;
  for (int d = 0; d < ndev; d++) {
    test_case c = {"dense", TL_FMT_I8_ROW, 256, 128, 0, 1, 0};
    dev_run run;
    memset(&run, 0, sizeof run);
    int ok = prepare(eng, d, &run, &c, rng, 0) == 0 && issue(eng, d, &run, &c) == TL_OK;
    check(ok, "dense: a group open on the device");
    for (int i = 0; i < 4 && ok; i++) {
      const int rows = shapes[i][0], cols = shapes[i][1];
      const size_t n = (size_t)rows * (size_t)cols;
      float *w = malloc(n * sizeof(float)), *s = malloc((size_t)rows * sizeof(float));
      float *x = malloc((size_t)cols * sizeof(float)), *y = malloc((size_t)rows * sizeof(float));
      float *want = malloc((size_t)rows * sizeof(float));
      int8_t *q = malloc(n);
      tl_tensor *t = NULL;
      if (w && s && x && y && want && q) {
        tg_fill(rng, w, n, -0.1f, 0.1f);
        tg_fill(rng, x, (size_t)cols, -3.0f, 3.0f);
        int rc = tl_dense_quantize(w, rows, cols, q, s, err, sizeof err);
        if (rc == TL_OK) {
          rc = tl_tensor_upload(eng, d, TL_FMT_I8_ROW, rows, cols, 0, q, n, s, (size_t)rows, &t,
                                err, sizeof err);
        }
        if (rc == TL_OK) rc = tl_dense_matvec(eng, d, t, x, y, err, sizeof err);
        if (rc == TL_OK) rc = tl_dense_cpu(q, s, rows, cols, x, want, err, sizeof err);
        if (rc != TL_OK) printf("  dense %dx%d on dev %d: %s\n", rows, cols, d, err);
        bad += rc != TL_OK || memcmp(y, want, (size_t)rows * sizeof(float)) != 0;
        runs++;
        if (t != NULL) tl_tensor_free(eng, t, NULL, 0);
      }
      free(w);
      free(s);
      free(x);
      free(y);
      free(want);
      free(q);
    }
    if (ok) take_and_compare(eng, d, &run, &c, lut);
    release(eng, &run);
  }
  snprintf(what, sizeof what, "dense: %d GEMVs on %d device(s) bit-identical to tl_dense_cpu", runs,
           ndev);
  check(bad == 0 && runs == 4 * ndev, what);
  printf("dense GEMVs inside open groups: %d of %d bit-identical\n", runs - bad, runs);
}

static tl_engine *open_engine(int want, int *ndev) {
  char err[512];
  int devs[TL_MAX_DEVICES];
  for (int i = 0; i < TL_MAX_DEVICES; i++) devs[i] = i;
  tl_engine *eng = NULL;
  int lo = want > 0 ? want : 1, hi = want > 0 ? want : TL_MAX_DEVICES;
  for (int n = hi; n >= lo; n--) { /* the backend refuses ids that do not exist */
    if (tl_engine_create(devs, n, 0, &eng, err, sizeof err) == TL_OK) {
      *ndev = n;
      return eng;
    }
  }
  printf("cannot create an engine: %s\n", err);
  return NULL;
}

int main(int argc, char **argv) {
  int want = 0, quick = 0, bw_only = 0, small = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--small") == 0)
      quick = small = 1;
    else if (strcmp(argv[i], "--bandwidth") == 0)
      bw_only = 1;
    else
      want = atoi(argv[i]);
  }
  int ndev = 0;
  char err[512];
  tl_engine *eng = open_engine(want, &ndev);
  if (eng == NULL) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  printf("backend %s, %d device(s)\n", tl_backend_name(), ndev);
  for (int d = 0; d < ndev; d++) {
    uint64_t f = 0, t = 0;
    if (tl_mem_info(eng, d, &f, &t, err, sizeof err) == TL_OK) {
      printf("  dev %d: %.1f of %.1f GiB free\n", d, (double)f / (1 << 30), (double)t / (1 << 30));
    }
  }
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  check(tl_engine_set_lut(eng, lut, err, sizeof err) == TL_OK, "set_lut");
  uint64_t c0 = 0, b0 = 0, c1 = 0, b1 = 0;
  check(tl_ledger(eng, &c0, &b0, err, sizeof err) == TL_OK, "ledger");

  static const test_case cases[] = {
      {"int8/row  H64 F128", TL_FMT_I8_ROW, 64, 128, 0, ROWS, 0},
      {"int4/row  H64 F128", TL_FMT_I4_ROW, 64, 128, 0, ROWS, 0},
      {"int4/g32  H64 F128", TL_FMT_I4_GROUP, 64, 128, 32, ROWS, 0},
      {"int8/row  H1024 F512", TL_FMT_I8_ROW, 1024, 512, 0, ROWS, 0},
      {"int4/row  H1024 F512", TL_FMT_I4_ROW, 1024, 512, 0, ROWS, 0},
      {"int4/g64  H1024 F512", TL_FMT_I4_GROUP, 1024, 512, 64, ROWS, 0},
      {"int4/g5   H250 F130 (odd groups)", TL_FMT_I4_GROUP, 250, 130, 5, 7, 0},
      {"int8/row  edge H256 F256", TL_FMT_I8_ROW, 256, 256, 0, ROWS, 1},
      {"int4/row  edge H256 F256", TL_FMT_I4_ROW, 256, 256, 0, ROWS, 1},
      {"int4/g16  edge H256 F256", TL_FMT_I4_GROUP, 256, 256, 16, ROWS, 1},
      {"int8/row  H8192 F8192 (max)", TL_FMT_I8_ROW, 8192, 8192, 0, 2, 0},
      {"int4/row  H8192 F8192 (max)", TL_FMT_I4_ROW, 8192, 8192, 0, 2, 0},
      {"int4/g128 H8192 F8192 (max)", TL_FMT_I4_GROUP, 8192, 8192, 128, 2, 0},
      {"fp8/b128  H64 F128", TL_FMT_FP8_BLOCK, 64, 128, 0, ROWS, 0},
      {"fp8/b128  H1024 F512", TL_FMT_FP8_BLOCK, 1024, 512, 0, ROWS, 0},
      {"fp8/b128  H250 F330 (partial blocks)", TL_FMT_FP8_BLOCK, 250, 330, 0, 7, 0},
      /* one block per row and column: an infinite block sum never meets another */
      {"fp8/b128  edge H128 F128", TL_FMT_FP8_BLOCK, 128, 128, 0, ROWS, 1},
      {"fp8/b128  H8192 F8192 (max)", TL_FMT_FP8_BLOCK, 8192, 8192, 0, 2, 0},
  };
  uint64_t rng = 20261129;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !bw_only; i++) {
    if ((quick && cases[i].hidden > 1024) || (small && cases[i].hidden > 256)) continue;
    run_case(eng, ndev, &cases[i], lut, &rng, 0);
    run_case(eng, ndev, &cases[i], lut, &rng, 1);
  }
  if (!bw_only) {
    printf("edge outputs reached: %ld subnormal, %ld infinite, %ld zero\n", n_subnormal, n_inf,
           n_zero);
  }
  if (!bw_only) fault_check(eng, lut, &rng);
  if (!bw_only) dense_check(eng, ndev, lut, &rng);
  uint64_t copies = 0, host = 0, pinned = 0;
  check(tl_ram_stats(eng, &copies, &host, &pinned, err, sizeof err) == TL_OK && copies == 0,
        "every RAM copy released");
  printf("RAM pool: %.1f MiB of host memory, %.1f MiB page-locked for the device\n",
         (double)host / 1048576.0, (double)pinned / 1048576.0);
  check(tl_ledger(eng, &c1, &b1, err, sizeof err) == TL_OK && c1 == c0 && b1 == b0,
        "ledger back to its baseline after every free");
  printf("ledger baseline: %" PRIu64 " internal buffers, %" PRIu64 " bytes\n", c0, b0);
  if (!quick) bandwidth(eng, ndev);
  check(tl_engine_destroy(eng, err, sizeof err) == TL_OK, "destroy");
  /* the Vulkan library counts validation-layer messages; any is a failure */
  int (*messages)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "tl_vk_validation_messages");
  if (messages != NULL) {
    printf("validation-layer messages: %d\n", messages());
    check(messages() == 0, "no validation-layer message");
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
