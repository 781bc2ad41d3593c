/*
 * The trunk of MATH.md (CPU only): matvec, rmsnorm, attention, axpy, argmax.
 *
 * Invariants: float32 throughout (every literal is a float literal, so nothing is
 * promoted to double); every sum runs sequentially from index 0; -ffp-contract=off
 * keeps each a*b + c as two roundings. These functions return void, so bad input
 * (NULL, sizes < 1) makes them do nothing rather than crash.
 */
#include <math.h>
#include <string.h>

#include "../include/tierlab.h"

TL_API void tl_matvec_f32(const float *w, const float *x, int rows, int cols, float *y) {
  if (w == NULL || x == NULL || y == NULL || rows < 1 || cols < 1) return;
  for (int r = 0; r < rows; r++) {
    const float *wr = w + (size_t)r * (size_t)cols;
    float acc = 0.0f;
    for (int j = 0; j < cols; j++) acc = acc + wr[j] * x[j];
    y[r] = acc;
  }
}

TL_API void tl_rmsnorm(const float *x, const float *w, int n, float *out) {
  if (x == NULL || w == NULL || out == NULL || n < 1) return;
  float ss = 0.0f;
  for (int i = 0; i < n; i++) ss = ss + x[i] * x[i];
  float r = 1.0f / sqrtf(ss / (float)n + 1e-5f);
  for (int i = 0; i < n; i++) out[i] = (x[i] * r) * w[i];
}

/* s_t = dot(q_h, k_h[t]) * scale; recomputed identically in each pass below, which
 * avoids a scratch buffer (this function cannot report an allocation failure). */
static float score(const float *q, const float *k, int hd, float scale) {
  float acc = 0.0f;
  for (int d = 0; d < hd; d++) acc = acc + q[d] * k[d];
  return acc * scale;
}

TL_API void tl_attention(const float *q, const float *k, const float *v, float *kcache,
                         float *vcache, int pos, int hidden, int heads, float *o) {
  if (q == NULL || k == NULL || v == NULL || kcache == NULL || vcache == NULL || o == NULL) return;
  if (pos < 0 || hidden < 1 || heads < 1 || hidden % heads != 0) return;
  const size_t H = (size_t)hidden;
  memmove(kcache + (size_t)pos * H, k, H * sizeof(float));
  memmove(vcache + (size_t)pos * H, v, H * sizeof(float));
  const int hd = hidden / heads;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int h = 0; h < heads; h++) {
    const size_t base = (size_t)h * (size_t)hd;
    float m = 0.0f;
    for (int t = 0; t <= pos; t++) {
      float s = score(q + base, kcache + (size_t)t * H + base, hd, scale);
      if (t == 0 || s > m) m = s;
    }
    float sum = 0.0f;
    for (int t = 0; t <= pos; t++) {
      sum = sum + expf(score(q + base, kcache + (size_t)t * H + base, hd, scale) - m);
    }
    for (int d = 0; d < hd; d++) o[base + (size_t)d] = 0.0f;
    for (int t = 0; t <= pos; t++) {
      float p = expf(score(q + base, kcache + (size_t)t * H + base, hd, scale) - m) / sum;
      const float *vt = vcache + (size_t)t * H + base;
      for (int d = 0; d < hd; d++) o[base + (size_t)d] = o[base + (size_t)d] + p * vt[d];
    }
  }
}

TL_API void tl_axpy(float *acc, float w, const float *y, int n) {
  if (acc == NULL || y == NULL || n < 1) return;
  for (int i = 0; i < n; i++) acc[i] = acc[i] + w * y[i];
}

TL_API int tl_argmax(const float *v, int n) {
  if (v == NULL || n < 1) return -1;
  int best = 0;
  for (int i = 1; i < n; i++) {
    if (v[i] > v[best]) best = i; /* strict: ties keep the lowest index */
  }
  return best;
}
