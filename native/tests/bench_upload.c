/*
 * Upload bandwidth of the engine's fill path against the plainest copy, in one run.
 *
 * Role: the C-level figure behind "the tier's uploads reach the copy engines' speed":
 * experts of a realistic size (default hidden 2048, width 768, int4 grouped 64: tensors
 * of 0.84 MiB) are loaded into RAM copies, staged, and every part uploaded with
 * tl_tensor_upload_staged, timed from the first upload call to the last completion
 * taken from the queue (the bytes are on the device then). Measured beside it, in the
 * same process: a plain memcpy of the same bytes from the same sources into memory
 * already touched (the CPU backend's bound; sources and target are huge-page mappings,
 * as the engine's RAM copies and tensor heap are), and tl_copy_bandwidth, pinned and pageable
 * (the raw host-to-device copy of the library, the bound on a GPU). Three rounds each,
 * interleaved; the best of each is compared. Prints the figures and the ratio; the exit
 * status is 0 unless something failed (the ratio is a number to read, not a test).
 *
 * usage: bench_upload [--mib N] [--hidden H] [--width F] [--dev D]
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "expert_gen.h"

#define ROUNDS 5
#define RAW_BYTES (256ull << 20)

typedef struct bench {
  tl_engine *eng;
  int dev, n;
  tg_expert proto;
  unsigned char *src; /* n packed experts, src_bytes apart (the RAM copies' sources) */
  size_t src_bytes;
  tl_part parts[3];
  tl_ram **ram;
  tl_staging **staged;
  tl_tensor **t; /* 3 per expert */
  unsigned char *dst; /* the memcpy target: every part of every expert, touched */
  uint64_t part_bytes; /* weights + scales of all parts of all experts */
} bench;

static double clock_s(clockid_t which) {
  struct timespec t;
  clock_gettime(which, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

static int fail(const char *what, const char *err) {
  fprintf(stderr, "bench_upload: %s: %s\n", what, err);
  return 1;
}

/* Touched memory in huge pages where the kernel gives them; NULL when out of memory. */
static unsigned char *huge_alloc(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  (void)madvise(p, bytes, MADV_HUGEPAGE);
  memset(p, 0, bytes);
  return p;
}

static double memcpy_round(bench *b) {
  unsigned char *to = b->dst;
  double t0 = now_s();
  for (int i = 0; i < b->n; i++) {
    for (int p = 0; p < 3; p++) {
      const unsigned char *from = b->src + (size_t)i * b->src_bytes;
      memcpy(to, from + b->parts[p].data_at, b->proto.wbytes[p]);
      to += b->proto.wbytes[p];
      memcpy(to, from + b->parts[p].scales_at, b->proto.nscales[p] * sizeof(float));
      to += b->proto.nscales[p] * sizeof(float);
    }
  }
  double dt = now_s() - t0;
  __asm__ volatile("" : : "r"(b->dst) : "memory");
  return (double)b->part_bytes / dt / 1e9;
}

/* Every part of every expert, uploaded and landed; the tensors are freed afterwards.
 * *call_us: the caller's CPU time per upload call (the issue loop only), the cost that
 * bounds the rate when the copies are shorter than the calls. */
static int upload_round(bench *b, double *gbps, double *call_us) {
  char err[512];
  const int total = 3 * b->n;
  double t0 = now_s();
  double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < b->n; i++) {
    for (int p = 0; p < 3; p++) {
      uint64_t tag = 1 + 3 * (uint64_t)i + (uint64_t)p;
      if (tl_tensor_upload_staged(b->eng, b->dev, b->staged[i], p, tag, &b->t[3 * i + p], err,
                                  sizeof err) != TL_OK) {
        return fail("tl_tensor_upload_staged", err);
      }
    }
  }
  *call_us = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e6 / total;
  tl_completion batch[64];
  int landed = 0;
  while (landed < total) {
    int n = 0, ready = 0;
    if (tl_completions_take(b->eng, batch, 64, &n, err, sizeof err) != TL_OK) {
      return fail("tl_completions_take", err);
    }
    for (int k = 0; k < n; k++) {
      if (batch[k].status != TL_OK) return fail("upload completion", batch[k].message);
    }
    landed += n;
    if (n == 0 &&
        tl_completions_wait(b->eng, total - landed, 10000, &ready, err, sizeof err) != TL_OK) {
      return fail("tl_completions_wait", err);
    }
  }
  double dt = now_s() - t0;
  *gbps = (double)b->part_bytes / dt / 1e9;
  for (int k = 0; k < total; k++) {
    if (tl_tensor_free(b->eng, b->t[k], err, sizeof err) != TL_OK) {
      return fail("tl_tensor_free", err);
    }
  }
  return 0;
}

/* The prototype expert and how many of it make `mib`; *footprint is what the device is
 * charged for all of them. */
static int size_up(bench *b, int hidden, int width, double mib, uint64_t *footprint) {
  uint64_t rng = 2026;
  if (tg_expert_make(&b->proto, &rng, TL_FMT_I4_GROUP, hidden, width, 64) != 0) {
    return fail("setup", "out of memory");
  }
  uint64_t per = 0, fp = 0;
  for (int p = 0; p < 3; p++) {
    uint64_t sb = b->proto.nscales[p] * sizeof(float);
    per += b->proto.wbytes[p] + sb;
    fp += tl_alloc_footprint(b->proto.wbytes[p]) + tl_alloc_footprint(sb);
  }
  b->n = (int)(mib * 1048576.0 / (double)per);
  if (b->n < 1) b->n = 1;
  b->part_bytes = per * (uint64_t)b->n;
  *footprint = fp * (uint64_t)b->n;
  return 0;
}

static int setup(bench *b) {
  char err[512];
  unsigned char *packed;
  if (tg_expert_pack(&b->proto, &packed, &b->src_bytes, b->parts) != 0) {
    return fail("setup", "out of memory");
  }
  b->src = huge_alloc((size_t)b->n * b->src_bytes);
  b->ram = calloc((size_t)b->n, sizeof *b->ram);
  b->staged = calloc((size_t)b->n, sizeof *b->staged);
  b->t = calloc(3 * (size_t)b->n, sizeof *b->t);
  b->dst = huge_alloc((size_t)b->part_bytes);
  if (b->src == NULL || b->ram == NULL || b->staged == NULL || b->t == NULL || b->dst == NULL) {
    return fail("setup", "out of memory");
  }
  for (int i = 0; i < b->n; i++) {
    unsigned char *mine = b->src + (size_t)i * b->src_bytes;
    memcpy(mine, packed, b->src_bytes);
    mine[0] = (unsigned char)i; /* distinct bytes per expert */
    if (tl_ram_load_mem(b->eng, mine, b->src_bytes, b->parts, 3, &b->ram[i], err, sizeof err) !=
        TL_OK) {
      return fail("tl_ram_load_mem", err);
    }
    if (tl_stage(b->eng, b->ram[i], &b->staged[i], err, sizeof err) != TL_OK) {
      return fail("tl_stage", err);
    }
  }
  free(packed);
  return 0;
}

static const char *rounds_text(const double *v, char *buf, size_t cap) {
  size_t at = 0;
  for (int i = 0; i < ROUNDS && at < cap; i++) {
    at += (size_t)snprintf(buf + at, cap - at, i ? " %.2f" : "%.2f", v[i]);
  }
  return buf;
}

static double best_of(const double *v) {
  double m = v[0];
  for (int i = 1; i < ROUNDS; i++) m = v[i] > m ? v[i] : m;
  return m;
}

int main(int argc, char **argv) {
  double mib = 512;
  int hidden = 2048, width = 768, dev = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--mib") == 0)
      mib = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--hidden") == 0)
      hidden = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--width") == 0)
      width = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--dev") == 0)
      dev = atoi(argv[i + 1]);
    else
      return fail("usage", "bench_upload [--mib N] [--hidden H] [--width F] [--dev D]");
  }
  char err[512];
  bench b = {.dev = 0};
  uint64_t footprint = 0;
  if (size_up(&b, hidden, width, mib, &footprint) != 0) return 1;
  /* the CPU backend's device is declared big enough; every backend gets the memory for
   * the uploads made ready before they are timed, as a warmstart does */
  uint64_t cap = strcmp(tl_backend_name(), "cpu") == 0 ? footprint + (8ull << 20) : 0;
  if (tl_engine_create(&dev, 1, cap, &b.eng, err, sizeof err) != TL_OK) {
    return fail("tl_engine_create", err);
  }
  if (tl_tensor_reserve(b.eng, 0, footprint, err, sizeof err) != TL_OK) {
    return fail("tl_tensor_reserve", err);
  }
  if (setup(&b) != 0) return 1;
  uint64_t copies, host, pinned;
  if (tl_ram_stats(b.eng, &copies, &host, &pinned, err, sizeof err) != TL_OK) {
    return fail("tl_ram_stats", err);
  }
  double raw_pinned = 0, raw_pageable = 0;
  if (tl_copy_bandwidth(b.eng, 0, RAW_BYTES, 5, 1, &raw_pinned, err, sizeof err) != TL_OK ||
      tl_copy_bandwidth(b.eng, 0, RAW_BYTES, 5, 0, &raw_pageable, err, sizeof err) != TL_OK) {
    return fail("tl_copy_bandwidth", err);
  }
  double mc[ROUNDS], up[ROUNDS], call_us[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    mc[r] = memcpy_round(&b);
    if (upload_round(&b, &up[r], &call_us[r]) != 0) return 1;
  }
  const char *threads = getenv("TIERLAB_CPU_COPY_THREADS");
  printf(
      "backend %s, device id %d: %d experts x 3 tensors of %.2f MiB (hidden %d, width %d, "
      "int4 grouped 64), %.1f MiB in all\n",
      tl_backend_name(), dev, b.n, (double)b.part_bytes / (3.0 * b.n) / 1048576.0, hidden, width,
      (double)b.part_bytes / 1048576.0);
  printf("RAM copies: %.1f MiB of host memory, %.1f MiB pinned; cpu copy threads %s\n",
         (double)host / 1048576.0, (double)pinned / 1048576.0,
         threads != NULL ? threads : "default");
  printf("raw copy, tl_copy_bandwidth 256 MiB x 5: pinned %.2f GB/s, pageable %.2f GB/s\n",
         raw_pinned, raw_pageable);
  char text[128];
  printf("memcpy of the same bytes (one thread, touched target): best %.2f GB/s (rounds %s)\n",
         best_of(mc), rounds_text(mc, text, sizeof text));
  printf("staged uploads, first call to last completion: best %.2f GB/s (rounds %s)\n", best_of(up),
         rounds_text(up, text, sizeof text));
  double least = call_us[0];
  for (int r = 1; r < ROUNDS; r++) least = call_us[r] < least ? call_us[r] : least;
  printf(
      "caller CPU per upload call: least %.1f us (the bus needs %.1f us per tensor at the "
      "raw pinned rate)\n",
      least, (double)b.part_bytes / (3.0 * b.n) / (raw_pinned * 1e3));
  printf("ratio uploads / memcpy: %.3f\n", best_of(up) / best_of(mc));
  printf("ratio uploads / raw pinned copy: %.3f\n", best_of(up) / raw_pinned);
  for (int i = 0; i < b.n; i++) {
    if (tl_unstage(b.eng, b.staged[i], err, sizeof err) != TL_OK ||
        tl_ram_free(b.eng, b.ram[i], err, sizeof err) != TL_OK) {
      return fail("release", err);
    }
  }
  if (tl_engine_destroy(b.eng, err, sizeof err) != TL_OK) return fail("destroy", err);
  tg_expert_free(&b.proto);
  munmap(b.src, (size_t)b.n * b.src_bytes);
  munmap(b.dst, (size_t)b.part_bytes);
  free(b.ram);
  free(b.staged);
  free(b.t);
  return 0;
}
