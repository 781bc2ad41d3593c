/*
 * Upload bandwidth of the Vulkan backend, staged vs mapped (make -C native vulkan-bench).
 *
 * For the record only: on lavapipe "device memory" is host memory, so this measures the
 * cost of each path's copies, not PCIe. For each mode and tensor size, a fresh engine
 * uploads `total` bytes of int8 tensors (tl_tensor_upload, weights + scales) and the
 * wall time gives MB/s (10^6 bytes). A fresh engine per run, because the fill-once arena
 * never gives anything back. Prints one line per run and exits 0 unless a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../include/tierlab.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const char *mode, int rows, int cols, size_t total, double *mbps) {
  char err[512] = "";
  setenv("TIERLAB_VK_UPLOAD", mode, 1);
  int dev = 0;
  tl_engine *eng = NULL;
  if (tl_engine_create(&dev, 1, 0, &eng, err, sizeof err) != TL_OK) {
    fprintf(stderr, "engine: %s\n", err);
    return 1;
  }
  size_t bytes = (size_t)rows * cols;
  int count = (int)(total / bytes);
  int8_t *w = malloc(bytes);
  float *s = malloc((size_t)rows * sizeof(float));
  for (size_t i = 0; i < bytes; i++) w[i] = (int8_t)((i * 131) % 255 - 127);
  for (int i = 0; i < rows; i++) s[i] = 0.01f;
  tl_tensor **t = calloc((size_t)count, sizeof *t);
  int rc = TL_OK;
  double t0 = now_s();
  for (int i = 0; i < count && rc == TL_OK; i++)
    rc = tl_tensor_upload(eng, 0, TL_FMT_I8_ROW, rows, cols, 0, w, bytes, s, (size_t)rows, &t[i],
                          err, sizeof err);
  double dt = now_s() - t0;
  if (rc != TL_OK) fprintf(stderr, "upload: %s\n", err);
  *mbps = (double)count * (double)(bytes + (size_t)rows * sizeof(float)) / dt / 1e6;
  tl_engine_destroy(eng, NULL, 0); /* frees the tensors too */
  free(t);
  free(w);
  free(s);
  return rc != TL_OK;
}

int main(void) {
  const struct {
    int rows, cols;
  } sizes[] = {{512, 512}, {1024, 2048}, {2048, 4096}}; /* 256 KiB, 2 MiB, 8 MiB */
  const size_t total = 256u << 20;
  const char *modes[] = {"staged", "mapped"};
  int failed = 0;
  printf("%-8s %12s %10s\n", "mode", "tensor", "MB/s");
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    for (int m = 0; m < 2; m++) {
      double mbps = 0;
      /* one warm-up run (first-touch page faults, driver compile caches), then measure */
      failed |= run(modes[m], sizes[k].rows, sizes[k].cols, total / 4, &mbps);
      failed |= run(modes[m], sizes[k].rows, sizes[k].cols, total, &mbps);
      printf("%-8s %9zu KiB %10.0f\n", modes[m],
             (size_t)sizes[k].rows * (size_t)sizes[k].cols / 1024, mbps);
    }
  return failed;
}
