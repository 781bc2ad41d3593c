/*
 * Raw host-to-device copy bandwidth on every visible GPU: cudaMemcpy from pinned
 * (cudaMallocHost) and from pageable (malloc) memory, 256 MiB x 5 each. The oracle's
 * GPU report puts the tier uploader's bandwidth next to these numbers, measured in the
 * same run on the same machine. Exit 0 on success, 1 on any CUDA error (printed).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return 1;
  fprintf(stderr, "h2d probe: %s: %s\n", what, cudaGetErrorString(e));
  return 0;
}

static double measure(void *dst, const void *src, size_t bytes, int reps) {
  double best = 0;
  for (int i = 0; i < reps; i++) {
    double t0 = now_s();
    if (!ok(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) return -1;
    double gbs = bytes / (now_s() - t0) / 1e9;
    if (gbs > best) best = gbs;
  }
  return best;
}

int main(void) {
  const size_t bytes = (size_t)256 << 20;
  const int reps = 5;
  int n = 0;
  if (!ok(cudaGetDeviceCount(&n), "cudaGetDeviceCount")) return 1;
  for (int d = 0; d < n; d++) {
    if (!ok(cudaSetDevice(d), "cudaSetDevice")) return 1;
    void *dev = NULL, *pinned = NULL;
    void *pageable = malloc(bytes);
    if (pageable == NULL || !ok(cudaMalloc(&dev, bytes), "cudaMalloc") ||
        !ok(cudaMallocHost(&pinned, bytes), "cudaMallocHost"))
      return 1;
    memset(pinned, 1, bytes);
    memset(pageable, 1, bytes);
    double p = measure(dev, pinned, bytes, reps);
    double q = measure(dev, pageable, bytes, reps);
    if (p < 0 || q < 0) return 1;
    printf("h2d dev %d: pinned %.1f GB/s, pageable %.1f GB/s (256 MiB x %d, best)\n", d, p, q,
           reps);
    cudaFreeHost(pinned);
    cudaFree(dev);
    free(pageable);
  }
  return 0;
}
