/*
 * The expert group on the GPU: MATH.md's expert, bit-identical to expert_math.c.
 *
 * Why it matches the CPU bit for bit: integer sums are exact whatever the order, so
 * the int32 dot products may be reduced across a warp; everything in float is written
 * with explicit round-to-nearest intrinsics (__fmul_rn, __fadd_rn, __int2float_rn),
 * rintf and ldexpf, in the CPU's order (format 4: group sums added one by one in group
 * order by lane 0); built with -fmad=false -ftz=false so nothing fuses or flushes.
 * The amax is a max, which is exact and order-free too. Format 8's float sums are not
 * order-free: every lane runs the whole row in the CPU's order (columns within a block,
 * blocks in order), with the e4m3 table the CPU reads, copied to constant memory.
 * Layout: one block per row for quant; one warp per output element for the dots; the
 * dense GEMV is format 1's dot, one warp per output row.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "../include/tierlab.h"
#include "cuda_rows.h"

#define WARPS_PER_BLOCK 8
#define QUANT_THREADS 256

/* native/src/e4m3.c's table, copied in by tl_cuda_set_e4m3 */
__constant__ float e4m3_table[256];

/* 2^k for k in [-126, 127], exact. */
__device__ __forceinline__ float pow2f(int k) { return __int_as_float((k + 127) << 23); }

/* rint, then clamp; NaN goes to lo (the CPU's rule, expert_math.c). */
__device__ __forceinline__ int rint_clamp(float v, float lo, float hi) {
  float r = rintf(v);
  if (!(r >= lo)) r = lo;
  if (r > hi) r = hi;
  return (int)r;
}

__device__ __forceinline__ int nibble(const uint8_t *row, int j) {
  int b = row[j >> 1];
  int v = (j & 1) ? (b >> 4) : (b & 15);
  return v >= 8 ? v - 16 : v;
}

__device__ __forceinline__ int warp_sum(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v; /* every lane holds the exact total */
}

/* Dequantized dot(W, row, q) with exponent e; the result is valid in every lane. */
__device__ float warp_dot_deq(const tl_cuda_wref &t, int row, const int8_t *q, int e, int lane) {
  const int cols = t.cols;
  float out;
  if (t.fmt == TL_FMT_I8_ROW) {
    const int8_t *w = (const int8_t *)t.w + (size_t)row * (size_t)cols;
    int acc = 0;
    for (int j = lane; j < cols; j += 32) acc += (int)w[j] * (int)q[j];
    acc = warp_sum(acc);
    out = __fmul_rn(__int2float_rn(acc), t.s[row]);
  } else if (t.fmt == TL_FMT_I4_ROW) {
    const uint8_t *w = (const uint8_t *)t.w + (size_t)row * (size_t)(cols / 2);
    int acc = 0;
    for (int j = lane; j < cols; j += 32) acc += nibble(w, j) * (int)q[j];
    acc = warp_sum(acc);
    out = __fmul_rn(__int2float_rn(acc), t.s[row]);
  } else if (t.fmt == TL_FMT_FP8_BLOCK) { /* the CPU's order, in every lane */
    const uint8_t *w = (const uint8_t *)t.w + (size_t)row * (size_t)cols;
    const int nb = (cols + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK;
    const float *s = t.s + (size_t)(row / TL_FP8_BLOCK) * (size_t)nb;
    out = 0.0f;
    for (int b = 0; b < nb; b++) {
      const int j1 = (b + 1) * TL_FP8_BLOCK < cols ? (b + 1) * TL_FP8_BLOCK : cols;
      float acc = 0.0f;
      for (int j = b * TL_FP8_BLOCK; j < j1; j++) {
        acc = __fadd_rn(acc, __fmul_rn(e4m3_table[w[j]], __int2float_rn((int)q[j])));
      }
      out = __fadd_rn(out, __fmul_rn(acc, s[b]));
    }
  } else { /* int4 grouped: group sums in order, two roundings each (mul, then add) */
    const uint8_t *w = (const uint8_t *)t.w + (size_t)row * (size_t)(cols / 2);
    const int gs = t.group, ng = cols / gs;
    const float *s = t.s + (size_t)row * (size_t)ng;
    out = 0.0f;
    for (int g = 0; g < ng; g++) {
      int acc = 0;
      for (int j = g * gs + lane; j < (g + 1) * gs; j += 32) acc += nibble(w, j) * (int)q[j];
      acc = warp_sum(acc);
      out = __fadd_rn(out, __fmul_rn(__int2float_rn(acc), s[g]));
    }
  }
  return ldexpf(out, e); /* exact scaling by 2^e, e in [-66, 122] */
}

/* quant(v) of one row per block; len = hidden, or the row's width when use_width. */
__global__ void quant_kernel(const float *v, size_t vstride, const tl_cuda_row *rows, int hidden,
                             int use_width, int8_t *q, size_t qstride, int *e_out) {
  __shared__ float red[QUANT_THREADS];
  const int r = blockIdx.x, tid = threadIdx.x;
  const int len = use_width ? rows[r].width : hidden;
  const float *vr = v + (size_t)r * vstride;
  int8_t *qr = q + (size_t)r * qstride;
  float m = 0.0f;
  for (int i = tid; i < len; i += QUANT_THREADS) {
    float a = fabsf(vr[i]);
    if (a > m) m = a; /* NaN never wins, as on the CPU */
  }
  red[tid] = m;
  __syncthreads();
  for (int s = QUANT_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s && red[tid + s] > red[tid]) red[tid] = red[tid + s];
    __syncthreads();
  }
  const float amax = red[0];
  if (!(amax >= 0x1p-60f)) {
    for (int i = tid; i < len; i += QUANT_THREADS) qr[i] = 0;
    if (tid == 0) e_out[r] = 0;
    return;
  }
  const int big_e = ((__float_as_int(amax) >> 23) & 0xff) - 127;
  const int e = big_e + 1 - 7;
  const float inv = pow2f(-e);
  for (int i = tid; i < len; i += QUANT_THREADS) {
    qr[i] = (int8_t)rint_clamp(__fmul_rn(vr[i], inv), -127.0f, 127.0f);
  }
  if (tid == 0) e_out[r] = e;
}

/* h[r][i] = SILU_LUT[t + 512] * u_i for one i per warp (grid: width tiles x rows). */
__global__ void gate_up_kernel(const tl_cuda_row *rows, const int8_t *qx, size_t qstride,
                               const int *e_x, const float *lut, float *h, size_t hstride) {
  const int r = blockIdx.y, lane = threadIdx.x & 31;
  const int i = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);
  const tl_cuda_row *row = &rows[r];
  if (i >= row->width) return; /* warp-uniform: the shuffles below see full warps */
  const int8_t *q = qx + (size_t)r * qstride;
  const float g = warp_dot_deq(row->gate, i, q, e_x[r], lane);
  const float u = warp_dot_deq(row->up, i, q, e_x[r], lane);
  if (lane == 0) {
    const int t = rint_clamp(__fmul_rn(g, 32.0f), -512.0f, 511.0f); /* times 32: exact */
    h[(size_t)r * hstride + (size_t)i] = __fmul_rn(lut[t + 512], u);
  }
}

/* y[r][o] = dot(down, o, qh) for one o per warp (grid: hidden tiles x rows). */
__global__ void down_kernel(const tl_cuda_row *rows, int hidden, const int8_t *qh, size_t qstride,
                            const int *e_h, float *y) {
  const int r = blockIdx.y, lane = threadIdx.x & 31;
  const int o = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);
  if (o >= hidden) return; /* warp-uniform */
  const float v = warp_dot_deq(rows[r].down, o, qh + (size_t)r * qstride, e_h[r], lane);
  if (lane == 0) y[(size_t)r * (size_t)hidden + (size_t)o] = v;
}

/* y[o] = dot(w, o, qx) with exponent e, one warp per output row (the dense GEMV). */
__global__ void dense_kernel(tl_cuda_wref w, const int8_t *qx, int e, float *y) {
  const int lane = threadIdx.x & 31;
  const int o = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);
  if (o >= w.rows) return; /* warp-uniform */
  const float v = warp_dot_deq(w, o, qx, e, lane);
  if (lane == 0) y[o] = v;
}

extern "C" cudaError_t tl_cuda_launch_dense(tl_cuda_wref w, const int8_t *qx, int e, float *y,
                                            cudaStream_t stream) {
  const unsigned blocks = (unsigned)((w.rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
  dense_kernel<<<blocks, WARPS_PER_BLOCK * 32, 0, stream>>>(w, qx, e, y);
  return cudaGetLastError();
}

/* One thread that waits on the device's global timer: the stream behind it stalls, the
 * other streams run on (a host function would hold back work on every stream). */
__global__ void delay_kernel(long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while ((long long)(now - start) < ns);
}

extern "C" cudaError_t tl_cuda_launch_delay(long us, cudaStream_t stream) {
  delay_kernel<<<1, 1, 0, stream>>>((long long)us * 1000);
  return cudaGetLastError();
}

extern "C" cudaError_t tl_cuda_set_e4m3(const float *table) {
  return cudaMemcpyToSymbol(e4m3_table, table, sizeof(float) * 256);
}

extern "C" cudaError_t tl_cuda_launch_group(const tl_cuda_row *rows, int n, int hidden,
                                            int max_width, const float *x, float *y, float *h,
                                            int8_t *qx, int8_t *qh, int *e, const float *lut,
                                            cudaStream_t stream) {
  const int threads = WARPS_PER_BLOCK * 32;
  quant_kernel<<<n, QUANT_THREADS, 0, stream>>>(x, (size_t)hidden, rows, hidden, 0, qx,
                                                TL_MAX_HIDDEN, e);
  dim3 gu((unsigned)((max_width + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK), (unsigned)n);
  gate_up_kernel<<<gu, threads, 0, stream>>>(rows, qx, TL_MAX_HIDDEN, e, lut, h, TL_MAX_WIDTH);
  quant_kernel<<<n, QUANT_THREADS, 0, stream>>>(h, TL_MAX_WIDTH, rows, hidden, 1, qh, TL_MAX_WIDTH,
                                                e + TL_MAX_GROUP_ROWS);
  dim3 gd((unsigned)((hidden + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK), (unsigned)n);
  down_kernel<<<gd, threads, 0, stream>>>(rows, hidden, qh, TL_MAX_WIDTH, e + TL_MAX_GROUP_ROWS, y);
  return cudaGetLastError();
}
