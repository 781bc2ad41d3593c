/*
 * The bus's speed for copies of one expert tensor's size, beside one big copy, in one run.
 *
 * Role: the bound that small tensors put on a fill. An engine uploads each tensor of an
 * expert as a copy of its own (0.84 MiB for hidden 2048, width 768, int4 grouped 64);
 * if the copy engines lose a fixed time per copy, no tier reaches the big copy's rate
 * with such tensors, however little it spends per expert. Measured here, from
 * page-locked memory into one device buffer, 1 GiB in pieces of each size:
 *   - cudaMemcpyAsync per piece on 1, 2 or 4 streams (round robin), with an event
 *     recorded after each piece or not, and with an event created per piece (as an
 *     upload that owns its event does);
 *   - cudaMemcpyBatchAsync of the three pieces of an expert in one call;
 *   - the three pieces of an expert as one copy (contiguous on both sides).
 * Each row: GB/s (best of 3), its ratio to one 256 MiB cudaMemcpy from the same memory,
 * and the caller's CPU per piece (the submit loop). Exit 0 unless a CUDA call failed.
 *
 * usage: cuda_piece_probe [piece_bytes ...]   (default: 884736 2064384, the 0.84 and
 *        1.97 MiB tensors of widths 768 and 1792)
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TOTAL ((size_t)1 << 30)
#define BIG ((size_t)256 << 20)
#define REPS 3

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return 1;
  fprintf(stderr, "piece probe: %s: %s\n", what, cudaGetErrorString(e));
  return 0;
}

typedef struct probe {
  unsigned char *host, *dev;
  cudaStream_t s[4];
  cudaEvent_t *ev; /* one per piece, made once */
} probe;

enum { PLAIN, EVENT, EVENT_NEW, BATCH3, MERGED3 };
static const char *const MODE[] = {"per piece", "event per piece", "event made per piece",
                                   "batch of 3 a call", "3 pieces as one copy"};

/* One round: n pieces of `piece` bytes submitted, then every stream drained.
 * Returns GB/s, or -1 on a CUDA error; *call_us: the caller's CPU per piece. */
static double round_of(probe *p, size_t piece, int streams, int mode, double *call_us) {
  const size_t n = TOTAL / piece - (TOTAL / piece) % 3;
  double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
  cudaEvent_t made[3] = {0};
  for (size_t i = 0; i < n;) {
    cudaStream_t s = p->s[(i / (mode >= BATCH3 ? 3 : 1)) % (size_t)streams];
    unsigned char *dst = p->dev + i * piece;
    const unsigned char *src = p->host + i * piece;
    if (mode == BATCH3) {
      void *dsts[3] = {dst, dst + piece, dst + 2 * piece};
      const void *srcs[3] = {src, src + piece, src + 2 * piece};
      size_t sizes[3] = {piece, piece, piece};
      struct cudaMemcpyAttributes a = {};
      a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
      size_t idx = 0;
      if (!ok(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &a, &idx, 1, s), "cudaMemcpyBatchAsync"))
        return -1;
      if (!ok(cudaEventRecord(p->ev[i], s), "cudaEventRecord")) return -1;
      i += 3;
      continue;
    }
    if (mode == MERGED3) {
      if (!ok(cudaMemcpyAsync(dst, src, 3 * piece, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync"))
        return -1;
      if (!ok(cudaEventRecord(p->ev[i], s), "cudaEventRecord")) return -1;
      i += 3;
      continue;
    }
    if (!ok(cudaMemcpyAsync(dst, src, piece, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync"))
      return -1;
    if (mode == EVENT && !ok(cudaEventRecord(p->ev[i], s), "cudaEventRecord")) return -1;
    if (mode == EVENT_NEW) {
      cudaEvent_t e;
      if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate")) return -1;
      if (!ok(cudaEventRecord(e, s), "cudaEventRecord")) return -1;
      if (made[i % 3] != NULL) (void)cudaEventDestroy(made[i % 3]); /* destroy after use is legal */
      made[i % 3] = e;
    }
    i++;
  }
  *call_us = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e6 / (double)n;
  for (int k = 0; k < streams; k++)
    if (!ok(cudaStreamSynchronize(p->s[k]), "cudaStreamSynchronize")) return -1;
  for (int k = 0; k < 3; k++)
    if (made[k] != NULL) (void)cudaEventDestroy(made[k]);
  return (double)(n * piece) / (clock_s(CLOCK_MONOTONIC) - t0) / 1e9;
}

static double big_copy(probe *p) {
  double best = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = clock_s(CLOCK_MONOTONIC);
    if (!ok(cudaMemcpy(p->dev, p->host, BIG, cudaMemcpyHostToDevice), "cudaMemcpy")) return -1;
    double g = (double)BIG / (clock_s(CLOCK_MONOTONIC) - t0) / 1e9;
    best = g > best ? g : best;
  }
  return best;
}

int main(int argc, char **argv) {
  probe p = {0};
  const size_t max_pieces = TOTAL / 4096;
  p.ev = (cudaEvent_t *)calloc(max_pieces, sizeof *p.ev);
  if (p.ev == NULL) return 1;
  if (!ok(cudaMallocHost((void **)&p.host, TOTAL), "cudaMallocHost") ||
      !ok(cudaMalloc((void **)&p.dev, TOTAL), "cudaMalloc"))
    return 1;
  for (size_t i = 0; i < TOTAL; i += 4096) p.host[i] = (unsigned char)i;
  for (int k = 0; k < 4; k++)
    if (!ok(cudaStreamCreateWithFlags(&p.s[k], cudaStreamNonBlocking), "cudaStreamCreate"))
      return 1;
  size_t defaults[] = {884736, 2064384};
  int npieces = argc > 1 ? argc - 1 : 2;
  double raw = big_copy(&p);
  if (raw < 0) return 1;
  printf("one 256 MiB copy from page-locked memory: %.2f GB/s\n", raw);
  printf("%-12s %-22s %7s %8s %7s %12s\n", "piece", "mode", "streams", "GB/s", "ratio",
         "CPU/piece us");
  for (int a = 0; a < npieces; a++) {
    size_t piece = argc > 1 ? strtoull(argv[a + 1], NULL, 10) : defaults[a];
    if (piece < 4096 || piece > TOTAL / 3) {
      fprintf(stderr, "piece probe: a piece of %zu bytes is outside 4096..%zu\n", piece, TOTAL / 3);
      return 2;
    }
    for (size_t i = 0; i < TOTAL / piece; i++)
      if (p.ev[i] == NULL &&
          !ok(cudaEventCreateWithFlags(&p.ev[i], cudaEventDisableTiming), "cudaEventCreate"))
        return 1;
    for (int mode = PLAIN; mode <= MERGED3; mode++) {
      for (int streams = 1; streams <= 4; streams *= 2) {
        double best = 0, cpu = 0;
        for (int r = 0; r < REPS; r++) {
          double us = 0, g = round_of(&p, piece, streams, mode, &us);
          if (g < 0) return 1;
          if (g > best) best = g, cpu = us;
        }
        printf("%-12zu %-22s %7d %8.2f %7.3f %12.2f\n", piece, MODE[mode], streams, best,
               best / raw, cpu);
      }
    }
  }
  return 0;
}
