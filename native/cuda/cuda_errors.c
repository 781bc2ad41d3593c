/*
 * CUDA errors as tierlab statuses. Why a separate file: every CUDA file reports the
 * same way, and the OOM distinction matters to the tier (TL_E_OOM means "device
 * genuinely full", which makes it stop planning for that device).
 */
#include "cuda_backend.h"

int cuda_fail(char *err, size_t cap, int ordinal, const char *what, cudaError_t rc) {
  int code = rc == cudaErrorMemoryAllocation ? TL_E_OOM : TL_E_DEVICE;
  (void)cudaGetLastError(); /* resets a non-sticky error so the next call starts clean */
  return tl_fail(err, cap, code, "cuda device %d: %s: %s (%s)", ordinal, what,
                 cudaGetErrorString(rc), cudaGetErrorName(rc));
}
