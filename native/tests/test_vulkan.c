/*
 * Test of the Vulkan backend (make -C native vulkan-test), on the first Vulkan device
 * (lavapipe on a machine without a GPU).
 *
 * What it checks:
 *   - expert groups (1 to 32 rows) in formats 1, 2 and 4, odd and round shapes, in
 *     both upload modes (staged and mapped), against tl_expert_cpu: bit for bit (memcmp);
 *   - the arena never reclaims: freeing a tensor gives no free bytes back, through the
 *     dispatcher (capacity cap) and through the backend's own arena;
 *   - TL_E_OOM when the cap is hit, and still after a free (fill once);
 *   - uploads from a second thread while groups run;
 *   - shutdown is clean: with TIERLAB_VK_VALIDATION set, any message of the validation
 *     layer (leaked objects included, reported at destroy) fails the run.
 * Prints "N passed, N failed" last; exits 1 on any failure.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/tierlab.h"
#include "../src/backend.h"
#include "../vulkan/tierlab_vulkan.h"
#include "../vulkan/vk_internal.h"

static int g_pass, g_fail;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (cond) {                                            \
      g_pass++;                                            \
    } else {                                               \
      g_fail++;                                            \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
    }                                                      \
  } while (0)

/* ---- deterministic random data ---------------------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 16);
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 1000001) / 1e6f; }

static float g_lut[TL_SILU_LUT_SIZE];
static void make_lut(void) {
  for (int k = 0; k < TL_SILU_LUT_SIZE; k++) {
    double v = (k - 512) / 32.0;
    g_lut[k] = (float)(v / (1.0 + exp(-v)));
  }
}

/* One tensor in RAM with the shape rules of MATH.md. */
typedef struct host_tensor {
  int fmt, rows, cols, group;
  uint8_t *w;
  size_t w_bytes;
  float *s;
  size_t ns;
} host_tensor;

static void host_tensor_make(host_tensor *t, int fmt, int rows, int cols, int group) {
  t->fmt = fmt;
  t->rows = rows;
  t->cols = cols;
  t->group = fmt == TL_FMT_I4_GROUP ? group : 0;
  t->w_bytes = (size_t)rows * cols / (fmt == TL_FMT_I8_ROW ? 1 : 2);
  t->ns = fmt == TL_FMT_I4_GROUP ? (size_t)rows * cols / group : (size_t)rows;
  t->w = malloc(t->w_bytes);
  t->s = malloc(t->ns * sizeof(float));
  for (size_t i = 0; i < t->w_bytes; i++) {
    uint8_t b = (uint8_t)rnd();
    if (fmt == TL_FMT_I8_ROW && b == 0x80) b = 0x81; /* int8 weights in [-127, 127] */
    t->w[i] = b;
  }
  /* scales span a few binades, with both signs, so roundings really happen */
  for (size_t i = 0; i < t->ns; i++)
    t->s[i] = rndf(-1.0f, 1.0f) * ldexpf(1.0f, -(int)(rnd() % 8) - 4);
}

static void host_tensor_free(host_tensor *t) {
  free(t->w);
  free(t->s);
}

typedef struct host_expert {
  host_tensor gate, up, down;
} host_expert;

static void expert_make(host_expert *e, int fmt, int H, int F, int G) {
  host_tensor_make(&e->gate, fmt, F, H, G);
  host_tensor_make(&e->up, fmt, F, H, G);
  host_tensor_make(&e->down, fmt, H, F, G);
}

static void expert_free(host_expert *e) {
  host_tensor_free(&e->gate);
  host_tensor_free(&e->up);
  host_tensor_free(&e->down);
}

static int upload(tl_engine *eng, const host_tensor *t, tl_tensor **out, char *err, size_t cap) {
  return tl_tensor_upload(eng, 0, t->fmt, t->rows, t->cols, t->group, t->w, t->w_bytes, t->s, t->ns,
                          out, err, cap);
}

/* Input rows: ordinary values, plus the corner cases of quant (all zero, below 2^-60,
 * one huge value, exact halves for rint). */
static void make_x(float *x, int H, int kind) {
  for (int i = 0; i < H; i++) {
    switch (kind) {
      case 1:
        x[i] = 0.0f;
        break;
      case 2:
        x[i] = rndf(-1, 1) * 0x1p-62f;
        break;
      case 3:
        x[i] = i == 3 ? 3.0e4f : rndf(-1, 1);
        break;
      case 4: /* amax in [64, 128): scale 2^0, so every x is an exact half for rint */
        x[i] = i == 0 ? 127.5f : (float)((int)(rnd() % 255) - 127) + 0.5f;
        break;
      default:
        x[i] = rndf(-2.0f, 2.0f) * ldexpf(1.0f, (int)(rnd() % 5) - 2);
        break;
    }
  }
}

/* ---- bit-exact groups --------------------------------------------------------------- */

typedef struct shape {
  int fmt, H, F, G;
} shape;

static void test_groups(const char *mode, shape sh, int nexperts) {
  char err[512] = "";
  int dev = 0;
  tl_engine *eng = NULL;
  int rc = tl_engine_create(&dev, 1, 0, &eng, err, sizeof err);
  CHECK(rc == TL_OK, "[%s] engine create: %d %s", mode, rc, err);
  if (rc != TL_OK) return;
  rc = tl_engine_set_lut(eng, g_lut, err, sizeof err);
  CHECK(rc == TL_OK, "[%s] set lut: %s", mode, err);

  host_expert *ex = calloc((size_t)nexperts, sizeof *ex);
  tl_tensor **tg = calloc((size_t)nexperts, sizeof *tg),
            **tu = calloc((size_t)nexperts, sizeof *tu),
            **td = calloc((size_t)nexperts, sizeof *td);
  int uploaded = 1;
  for (int e = 0; e < nexperts && uploaded; e++) {
    expert_make(&ex[e], sh.fmt, sh.H, sh.F, sh.G);
    uploaded = upload(eng, &ex[e].gate, &tg[e], err, sizeof err) == TL_OK &&
        upload(eng, &ex[e].up, &tu[e], err, sizeof err) == TL_OK &&
        upload(eng, &ex[e].down, &td[e], err, sizeof err) == TL_OK;
  }
  CHECK(uploaded, "[%s] upload fmt %d: %s", mode, sh.fmt, err);

  const int sizes[] = {1, 7, 32, 32, 3};
  float *x = malloc(sizeof(float) * TL_MAX_GROUP_ROWS * sh.H);
  float *y = malloc(sizeof(float) * TL_MAX_GROUP_ROWS * sh.H);
  float *ref = malloc(sizeof(float) * sh.H);
  for (size_t k = 0; uploaded && k < sizeof sizes / sizeof *sizes; k++) {
    int n = sizes[k];
    tl_tensor *g[TL_MAX_GROUP_ROWS], *u[TL_MAX_GROUP_ROWS], *d[TL_MAX_GROUP_ROWS];
    int pick[TL_MAX_GROUP_ROWS];
    for (int r = 0; r < n; r++) {
      pick[r] = (int)(rnd() % (uint32_t)nexperts);
      g[r] = tg[pick[r]];
      u[r] = tu[pick[r]];
      d[r] = td[pick[r]];
      make_x(x + (size_t)r * sh.H, sh.H, (int)((k * 7 + (size_t)r) % 9));
    }
    rc = tl_group_issue(eng, 0, n, g, u, d, x, sh.H, 0, err, sizeof err);
    CHECK(rc == TL_OK, "[%s] issue n=%d: %s", mode, n, err);
    if (rc != TL_OK) continue;
    memset(y, 0xff, sizeof(float) * n * sh.H);
    rc = tl_group_take(eng, 0, y, n, sh.H, err, sizeof err);
    CHECK(rc == TL_OK, "[%s] take n=%d: %s", mode, n, err);
    int bad = 0;
    for (int r = 0; r < n && rc == TL_OK; r++) {
      const host_expert *e = &ex[pick[r]];
      int rr =
          tl_expert_cpu(sh.fmt, sh.H, sh.F, e->gate.group, e->gate.w, e->gate.s, e->up.w, e->up.s,
                        e->down.w, e->down.s, g_lut, x + (size_t)r * sh.H, ref, err, sizeof err);
      if (rr != TL_OK) {
        fprintf(stderr, "tl_expert_cpu: %s\n", err);
        bad++;
      } else if (memcmp(ref, y + (size_t)r * sh.H, sizeof(float) * sh.H) != 0) {
        int i = 0;
        while (i < sh.H && memcmp(&ref[i], &y[(size_t)r * sh.H + i], sizeof(float)) == 0) i++;
        fprintf(stderr, "  row %d: y[%d] = %.9g, cpu %.9g\n", r, i, y[(size_t)r * sh.H + i],
                ref[i]);
        bad++;
      }
    }
    CHECK(bad == 0, "[%s] fmt %d H %d F %d G %d n %d: %d rows differ from tl_expert_cpu", mode,
          sh.fmt, sh.H, sh.F, sh.G, n, bad);
  }
  free(x), free(y), free(ref);
  for (int e = 0; e < nexperts; e++) {
    if (tg[e]) tl_tensor_free(eng, tg[e], NULL, 0);
    if (tu[e]) tl_tensor_free(eng, tu[e], NULL, 0);
    if (td[e]) tl_tensor_free(eng, td[e], NULL, 0);
    expert_free(&ex[e]);
  }
  free(ex), free(tg), free(tu), free(td);
  rc = tl_engine_destroy(eng, err, sizeof err);
  CHECK(rc == TL_OK, "[%s] destroy: %s", mode, err);
}

/* ---- fill once, through the dispatcher ---------------------------------------------- */

static void test_fill_once_api(void) {
  char err[512] = "";
  int dev = 0;
  tl_engine *eng = NULL;
  const uint64_t cap = 16ull << 20;
  int rc = tl_engine_create(&dev, 1, cap, &eng, err, sizeof err);
  CHECK(rc == TL_OK, "fill-once engine: %s", err);
  if (rc != TL_OK) return;
  CHECK(tl_reclaims(eng) == 0, "tl_reclaims must be 0 on vulkan");
  uint64_t c0, b0;
  tl_ledger(eng, &c0, &b0, NULL, 0);

  host_tensor t;
  host_tensor_make(&t, TL_FMT_I8_ROW, 1024, 1024, 0); /* 1 MiB of weights */
  tl_tensor *live[64];
  int n = 0;
  uint64_t f_before = 0, f_after = 0, total = 0;
  while (n < 64) {
    rc = upload(eng, &t, &live[n], err, sizeof err);
    if (rc != TL_OK) break;
    n++;
  }
  CHECK(rc == TL_E_OOM, "cap %llu: expected TL_E_OOM, got %d (%s)", (unsigned long long)cap, rc,
        err);
  CHECK(n > 0 && n < 16, "cap of 16 MiB held %d tensors of 1 MiB", n);
  uint64_t c1, b1;
  tl_ledger(eng, &c1, &b1, NULL, 0);
  CHECK(c1 == c0 + (uint64_t)n, "ledger counts %llu tensors, expected %d",
        (unsigned long long)(c1 - c0), n);

  tl_mem_info(eng, 0, &f_before, &total, NULL, 0);
  for (int i = 0; i < n; i++) tl_tensor_free(eng, live[i], NULL, 0);
  tl_mem_info(eng, 0, &f_after, &total, NULL, 0);
  CHECK(f_after == f_before, "free bytes rose from %llu to %llu after freeing (must not)",
        (unsigned long long)f_before, (unsigned long long)f_after);
  tl_tensor *again = NULL;
  rc = upload(eng, &t, &again, err, sizeof err);
  CHECK(rc == TL_E_OOM, "upload after freeing everything: expected TL_E_OOM (fill once), got %d",
        rc);
  if (rc == TL_OK) tl_tensor_free(eng, again, NULL, 0);
  host_tensor_free(&t);
  CHECK(tl_engine_destroy(eng, err, sizeof err) == TL_OK, "destroy: %s", err);
}

/* ---- fill once, the backend's own arena (below the dispatcher's charge) ------------ */

static void test_arena_direct(void) {
  char err[512] = "";
  const tl_backend_ops *ops = &tl_backend_impl;
  tl_backend *b = NULL;
  int dev = 0;
  const uint64_t cap = 5ull << 20;
  int rc = ops->init(&b, NULL, &dev, 1, cap, err, sizeof err); /* no callbacks here */
  CHECK(rc == TL_OK, "backend init: %s", err);
  if (rc != TL_OK) return;
  uint64_t c0, b0, c1, b1, fr0, tot, fr1, fr2;
  ops->ledger(b, &c0, &b0);
  ops->mem_info(b, 0, &fr0, &tot, NULL, 0);
  CHECK(tot == cap && fr0 == cap, "arena: total %llu free %llu, cap %llu", (unsigned long long)tot,
        (unsigned long long)fr0, (unsigned long long)cap);

  host_tensor h;
  host_tensor_make(&h, TL_FMT_I4_ROW, 1024, 2048, 0); /* 1 MiB of weights + 4 KiB scales */
  tl_tensor t[8];
  memset(t, 0, sizeof t);
  int n = 0;
  for (; n < 8; n++) {
    t[n] = (tl_tensor){.fmt = h.fmt, .rows = h.rows, .cols = h.cols, .magic = TL_TENSOR_MAGIC};
    rc = ops->tensor_upload(b, &t[n], h.w, h.w_bytes, h.s, h.ns, err, sizeof err);
    if (rc != TL_OK) break;
  }
  CHECK(rc == TL_E_OOM && n == 4, "arena of 5 MiB: %d tensors of 1 MiB, rc %d (%s)", n, rc, err);
  ops->mem_info(b, 0, &fr1, &tot, NULL, 0);
  for (int i = 0; i < n; i++) ops->tensor_free(b, &t[i]);
  ops->mem_info(b, 0, &fr2, &tot, NULL, 0);
  CHECK(fr2 == fr1 && fr1 < fr0, "arena free bytes %llu -> %llu after frees (must not rise)",
        (unsigned long long)fr1, (unsigned long long)fr2);
  tl_tensor again = {.fmt = h.fmt, .rows = h.rows, .cols = h.cols, .magic = TL_TENSOR_MAGIC};
  rc = ops->tensor_upload(b, &again, h.w, h.w_bytes, h.s, h.ns, err, sizeof err);
  CHECK(rc == TL_E_OOM, "arena reused a freed slice (rc %d)", rc);
  if (rc == TL_OK) ops->tensor_free(b, &again);
  ops->ledger(b, &c1, &b1);
  CHECK(c1 == c0 && b1 == b0, "internal ledger moved: %llu/%llu -> %llu/%llu",
        (unsigned long long)c0, (unsigned long long)b0, (unsigned long long)c1,
        (unsigned long long)b1);
  host_tensor_free(&h);
  ops->shutdown(b);
}

/* ---- uploads on a worker thread while groups run ------------------------------------ */

typedef struct uploader_arg {
  tl_engine *eng;
  host_expert *ex;
  int count, failed;
  tl_tensor *t[3 * 24];
} uploader_arg;

static void *uploader(void *p) {
  uploader_arg *a = p;
  for (int i = 0; i < a->count; i++) {
    host_tensor *parts[3] = {&a->ex[i].gate, &a->ex[i].up, &a->ex[i].down};
    for (int k = 0; k < 3; k++)
      if (upload(a->eng, parts[k], &a->t[3 * i + k], NULL, 0) != TL_OK) a->failed++;
  }
  return NULL;
}

static void test_concurrent_uploads(void) {
  char err[512] = "";
  int dev = 0;
  tl_engine *eng = NULL;
  int rc = tl_engine_create(&dev, 1, 0, &eng, err, sizeof err);
  CHECK(rc == TL_OK, "engine: %s", err);
  if (rc != TL_OK) return;
  tl_engine_set_lut(eng, g_lut, NULL, 0);
  const int H = 128, F = 192, G = 64, fmt = TL_FMT_I4_GROUP;
  host_expert resident;
  expert_make(&resident, fmt, H, F, G);
  tl_tensor *g = NULL, *u = NULL, *d = NULL;
  rc = upload(eng, &resident.gate, &g, err, sizeof err) |
      upload(eng, &resident.up, &u, err, sizeof err) |
      upload(eng, &resident.down, &d, err, sizeof err);
  CHECK(rc == TL_OK, "resident upload: %s", err);

  static uploader_arg a;
  memset(&a, 0, sizeof a);
  a.eng = eng;
  a.count = 24;
  a.ex = calloc((size_t)a.count, sizeof *a.ex);
  for (int i = 0; i < a.count; i++) expert_make(&a.ex[i], fmt, H, F, G);
  pthread_t th;
  pthread_create(&th, NULL, uploader, &a);
  float x[4 * 128], y[4 * 128], ref[128];
  int bad = 0, groups = 0;
  for (int it = 0; it < 20 && rc == TL_OK; it++) {
    tl_tensor *gg[4] = {g, g, g, g}, *uu[4] = {u, u, u, u}, *dd[4] = {d, d, d, d};
    for (int i = 0; i < 4 * H; i++) x[i] = rndf(-1, 1);
    rc = tl_group_issue(eng, 0, 4, gg, uu, dd, x, H, 0, err, sizeof err);
    if (rc == TL_OK) rc = tl_group_take(eng, 0, y, 4, H, err, sizeof err);
    for (int r = 0; r < 4 && rc == TL_OK; r++) {
      tl_expert_cpu(fmt, H, F, G, resident.gate.w, resident.gate.s, resident.up.w, resident.up.s,
                    resident.down.w, resident.down.s, g_lut, x + r * H, ref, NULL, 0);
      bad += memcmp(ref, y + r * H, sizeof ref) != 0;
    }
    groups++;
  }
  pthread_join(th, NULL);
  CHECK(rc == TL_OK && bad == 0 && a.failed == 0,
        "concurrent: rc %d (%s), %d rows differ, %d uploads failed, %d groups", rc, err, bad,
        a.failed, groups);
  /* the experts that arrived on the worker thread compute right too */
  float xx[128], yy[128];
  for (int i = 0; i < H; i++) xx[i] = rndf(-1, 1);
  bad = 0;
  for (int i = 0; i < a.count && a.failed == 0; i++) {
    rc = tl_group_issue(eng, 0, 1, &a.t[3 * i], &a.t[3 * i + 1], &a.t[3 * i + 2], xx, H, 0, err,
                        sizeof err);
    if (rc == TL_OK) rc = tl_group_take(eng, 0, yy, 1, H, err, sizeof err);
    tl_expert_cpu(fmt, H, F, G, a.ex[i].gate.w, a.ex[i].gate.s, a.ex[i].up.w, a.ex[i].up.s,
                  a.ex[i].down.w, a.ex[i].down.s, g_lut, xx, ref, NULL, 0);
    bad += rc != TL_OK || memcmp(ref, yy, sizeof ref) != 0;
  }
  CHECK(bad == 0, "experts uploaded by the worker: %d wrong", bad);
  for (int i = 0; i < a.count; i++) expert_free(&a.ex[i]);
  free(a.ex);
  expert_free(&resident);
  /* destroy frees the tensors still live: the dispatcher's job, checked by the layer */
  CHECK(tl_engine_destroy(eng, err, sizeof err) == TL_OK, "destroy: %s", err);
}

/* ---- engine creation refusals ------------------------------------------------------ */

/* An engine asked for with NAME=VALUE in the environment is refused with TL_E_ARG. */
static void check_env_refused(const char *name, const char *value) {
  char err[512] = "";
  tl_engine *eng = NULL;
  const char *old = getenv(name);
  char *saved = old ? strdup(old) : NULL;
  setenv(name, value, 1);
  int zero = 0;
  int rc = tl_engine_create(&zero, 1, 0, &eng, err, sizeof err);
  CHECK(rc == TL_E_ARG && eng == NULL && strstr(err, name) != NULL, "%s=%s: rc %d (%s)", name,
        value, rc, err);
  if (saved) {
    setenv(name, saved, 1);
    free(saved);
  } else {
    unsetenv(name);
  }
  if (eng) tl_engine_destroy(eng, NULL, 0);
}

static void test_create_refusals(void) {
  char err[512] = "";
  tl_engine *eng = NULL;
  int two[2] = {0, 1}, far = 999;
  int rc = tl_engine_create(two, 2, 0, &eng, err, sizeof err);
  CHECK(rc == TL_E_UNSUPPORTED && eng == NULL, "two devices: rc %d (%s)", rc, err);
  rc = tl_engine_create(&far, 1, 0, &eng, err, sizeof err);
  CHECK(rc == TL_E_ARG && eng == NULL, "device 999: rc %d (%s)", rc, err);
  check_env_refused("TIERLAB_VK_UPLOAD", "sideways");
  check_env_refused("TIERLAB_VK_LANES", "0");
  check_env_refused("TIERLAB_VK_LANES", "65");
  check_env_refused("TIERLAB_VK_LANES", "8x");
}

/* One line on the device the backend picks (device 0), for the logs. */
static void print_device(void) {
  char err[512] = "";
  tl_backend *b = NULL;
  int dev = 0;
  if (tl_backend_impl.init(&b, NULL, &dev, 1, 0, err, sizeof err) != TL_OK) {
    printf("device 0: none (%s)\n", err);
    return;
  }
  int from_ext = 0;
  uint32_t heap = b->mprops.memoryTypes[b->arena.mem_type].heapIndex;
  vk_device_budget(b, heap, &from_ext);
  printf("device 0: %s, Vulkan %u.%u.%u, upload %s, arena limit %.2f GiB (%s)\n",
         b->props.deviceName, VK_API_VERSION_MAJOR(b->props.apiVersion),
         VK_API_VERSION_MINOR(b->props.apiVersion), VK_API_VERSION_PATCH(b->props.apiVersion),
         b->upload_mode == VK_UPLOAD_MAPPED ? "mapped" : "staged",
         (double)b->arena.limit / (1u << 30),
         from_ext ? "VK_EXT_memory_budget" : "fallback: heap - 1 GiB, at least heap / 2");
  tl_backend_impl.shutdown(b);
}

/* ---- main ---------------------------------------------------------------------------- */

int main(void) {
  make_lut();
  print_device();
  CHECK(strcmp(tl_backend_name(), "vulkan") == 0, "backend is %s", tl_backend_name());
  const shape shapes[] = {
      {TL_FMT_I8_ROW, 70, 38, 0},   {TL_FMT_I8_ROW, 256, 512, 0},  {TL_FMT_I4_ROW, 70, 38, 0},
      {TL_FMT_I4_ROW, 256, 512, 0}, {TL_FMT_I4_GROUP, 96, 64, 32}, {TL_FMT_I4_GROUP, 256, 512, 64},
      {TL_FMT_I4_GROUP, 72, 40, 8},
  };
  const char *modes[] = {"staged", "mapped"};
  const char *env_mode = getenv("TIERLAB_VK_UPLOAD");
  char *saved = env_mode ? strdup(env_mode) : NULL;
  for (int m = 0; m < 2; m++) {
    setenv("TIERLAB_VK_UPLOAD", modes[m], 1); /* read at engine creation */
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      test_groups(modes[m], shapes[s], 12);
    test_arena_direct();
  }
  if (saved) {
    setenv("TIERLAB_VK_UPLOAD", saved, 1);
    free(saved);
  } else {
    unsetenv("TIERLAB_VK_UPLOAD");
  }
  test_fill_once_api();
  test_concurrent_uploads();
  test_create_refusals();

  const char *val = getenv("TIERLAB_VK_VALIDATION");
  if (val && *val && strcmp(val, "0") != 0) {
    int msgs = tl_vk_validation_messages();
    CHECK(msgs == 0, "validation layer reported %d messages (see stderr)", msgs);
    printf("validation (%s): %d messages\n", val, msgs);
  } else {
    CHECK(tl_vk_validation_messages() == 0, "messages counted without validation");
  }
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
